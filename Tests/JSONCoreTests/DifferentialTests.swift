import Foundation
import JSONCore
import XCTest

/// The differential test: JSONCore against Foundation's `JSONSerialization` on
/// generated event lines and on mutated (mostly broken) copies of them.
///
/// Deliberate differences, excluded here and pinned down in `DocumentedDifferenceTests`:
/// - Foundation guesses UTF-16/UTF-32 when one of the first four bytes is NUL and skips a UTF-8
///   byte order mark; JSONCore only reads UTF-8 and rejects both.
/// - Numbers beyond Double's range (e.g. `1e400`): Foundation rejects the document, JSONCore
///   keeps the number as exact text. Counted, not failed.
/// - Foundation (swift-corelibs on Linux) accepts a trailing comma before `}` or `]`; RFC 8259
///   does not, and neither does JSONCore. Such lines are counted, and must parse in JSONCore to
///   Foundation's value once the trailing commas are removed.
final class DifferentialTests: XCTestCase {
    static let validLines = 2_000
    static let mutatedLines = 4_000

    func testGeneratedValidLinesAgreeWithFoundation() throws {
        var gen = JSONTextGenerator(seed: 0x5EED_0001)
        for n in 0..<Self.validLines {
            let line = Array(gen.documentText().utf8)
            let verdict = try XCTUnwrap(Self.compare(line), "line \(n) should be comparable")
            XCTAssertTrue(verdict.valid, "generated line \(n) must be valid: \(Self.show(line))")
        }
    }

    func testMutatedLinesAgreeWithFoundation() {
        var gen = JSONTextGenerator(seed: 0x5EED_0002)
        var rng = SeededRandom(seed: 0x5EED_0003)
        var valid = 0
        var invalid = 0
        var skipped = 0
        var trailingComma = 0
        for _ in 0..<Self.mutatedLines {
            let line = JSONMutator.mutate(Array(gen.documentText().utf8), using: &rng)
            guard let verdict = Self.compare(line) else {
                skipped += 1
                continue
            }
            if verdict.trailingComma { trailingComma += 1 }
            if verdict.valid { valid += 1 } else { invalid += 1 }
        }
        // The mutations must really exercise both verdicts.
        XCTAssertGreaterThan(invalid, Self.mutatedLines / 2)
        XCTAssertGreaterThan(valid, 50)
        XCTAssertLessThan(skipped, Self.mutatedLines / 20)
        XCTAssertGreaterThan(trailingComma, 0, "the trailing-comma mutation must be exercised")
    }

    /// Whether Foundation would read `line` as UTF-8 at all (see the class comment).
    static func foundationReadsAsUTF8(_ line: [UInt8]) -> Bool {
        if line.starts(with: [0xEF, 0xBB, 0xBF]) { return false }
        return !line.prefix(4).contains(0)
    }

    struct Verdict {
        var valid: Bool
        var trailingComma = false
        var hugeNumber = false
    }

    /// `line` without commas that directly (modulo whitespace) precede `}` or `]` outside strings.
    static func withoutTrailingCommas(_ line: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false
        var escaped = false
        for (k, c) in line.enumerated() {
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == UInt8(ascii: ",") {
                let next = line[(k + 1)...].first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
                if next == UInt8(ascii: "}") || next == UInt8(ascii: "]") { continue }
            }
            out.append(c)
        }
        return out
    }

    /// Checks one line with every JSONCore entry point and with Foundation; records a failure on
    /// any disagreement. Returns nil when the line is outside what can be compared.
    static func compare(_ line: [UInt8], file: StaticString = #filePath, lineNumber: UInt = #line) -> Verdict? {
        guard foundationReadsAsUTF8(line) else { return nil }
        let foundation = try? JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])
        let parsed: JSONValue?
        do { parsed = try JSONParser.parse(line) } catch { parsed = nil }
        let scannerValid = line.withUnsafeBufferPointer { (try? JSONScanner.validate($0)) != nil }
        let layoutResult: Result<ObjectLayout, JSONError> = line.withUnsafeBufferPointer { buffer in
            do throws(JSONError) { return .success(try ObjectLayout.scanDocument(buffer)) } catch { return .failure(error) }
        }
        let text = show(line)
        if parsed == nil, let foundation {
            // The only accepted disagreement: Foundation's trailing-comma leniency.
            let stripped = withoutTrailingCommas(line)
            guard stripped != line, let lenient = try? JSONParser.parse(stripped) else {
                XCTFail("Foundation accepts what JSONCore rejects: \(text)", file: file, line: lineNumber)
                return Verdict(valid: false)
            }
            if let d = FoundationComparison.difference(lenient, foundation) {
                XCTFail("value differs after removing trailing commas: \(d) in \(text)", file: file, line: lineNumber)
            }
            return Verdict(valid: false, trailingComma: true)
        }
        if let parsed, foundation == nil, FoundationComparison.hasNonFiniteNumber(parsed) {
            return Verdict(valid: true, hugeNumber: true)
        }
        XCTAssertEqual(parsed != nil, foundation != nil, "verdict differs from Foundation: \(text)", file: file, line: lineNumber)
        XCTAssertEqual(scannerValid, parsed != nil, "scanner and parser disagree: \(text)", file: file, line: lineNumber)
        switch (layoutResult, parsed) {
        case (.success(let layout), .some(.object(let object))):
            XCTAssertEqual(layout.members.count, object.count, "layout member count: \(text)", file: file, line: lineNumber)
        case (.failure(let error), .some(let value)):
            XCTAssertEqual(error.kind, .unexpectedType, "layout rejects valid JSON: \(text)", file: file, line: lineNumber)
            XCTAssertNil(value.objectValue, "layout rejects an object: \(text)", file: file, line: lineNumber)
        case (.success, _):
            XCTFail("layout accepts what the parser rejects: \(text)", file: file, line: lineNumber)
        case (.failure(let error), .none):
            XCTAssertNotEqual(error.kind, .unexpectedType, "invalid JSON reported as wrong type: \(text)", file: file, line: lineNumber)
        }
        if let parsed, let foundation, let d = FoundationComparison.difference(parsed, foundation) {
            XCTFail("value differs: \(d) in \(text)", file: file, line: lineNumber)
        }
        return Verdict(valid: parsed != nil)
    }

    static func show(_ line: [UInt8]) -> String {
        let s = String(decoding: line.prefix(300), as: UTF8.self).debugDescription
        return line.count > 300 ? s + "...(\(line.count) bytes)" : s
    }
}
