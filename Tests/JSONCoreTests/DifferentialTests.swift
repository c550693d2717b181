import Foundation
import JSONCore
import XCTest

/// The differential test: JSONCore against Foundation's `JSONSerialization` on
/// generated event lines and on mutated (mostly broken) copies of them.
///
/// The deliberate differences, allowed by `FoundationComparison` (which lists them) and pinned
/// down in `DocumentedDifferenceTests` and `FoundationAllowanceTests`: other encodings and a
/// byte order mark, numbers beyond Double's range, trailing commas, U+FEFF at the start of a
/// string run, and Foundation's inexact Double conversions.
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

    struct Verdict {
        var valid: Bool
        var trailingComma = false
        var hugeNumber = false
    }

    /// Checks one line with every JSONCore entry point and with Foundation; records a failure on
    /// any disagreement. Returns nil when the line is outside what can be compared.
    static func compare(_ line: [UInt8], file: StaticString = #filePath, lineNumber: UInt = #line) -> Verdict? {
        guard let outcome = FoundationComparison.compare(line) else { return nil }
        let text = show(line)
        for problem in outcome.problems {
            XCTFail("\(problem): \(text)", file: file, line: lineNumber)
        }
        let verdict = Verdict(valid: outcome.valid, trailingComma: outcome.trailingComma, hugeNumber: outcome.hugeNumber)
        let parsed: JSONValue?
        do { parsed = try JSONParser.parse(line) } catch { parsed = nil }
        let scannerValid = line.withUnsafeBufferPointer { (try? JSONScanner.validate($0)) != nil }
        let layoutResult: Result<ObjectLayout, JSONError> = line.withUnsafeBufferPointer { buffer in
            do throws(JSONError) { return .success(try ObjectLayout.scanDocument(buffer)) } catch { return .failure(error) }
        }
        XCTAssertEqual(parsed != nil, outcome.valid, "parser verdict: \(text)", file: file, line: lineNumber)
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
        return verdict
    }

    static func show(_ line: [UInt8]) -> String {
        let s = String(decoding: line.prefix(300), as: UTF8.self).debugDescription
        return line.count > 300 ? s + "...(\(line.count) bytes)" : s
    }
}
