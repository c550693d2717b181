import Foundation
import JSONCore
import TestSupport
import Testing

/// The issue's differential test: JSONCore against Foundation's `JSONSerialization` on
/// generated event lines and on mutated (mostly broken) copies of them.
///
/// The deliberate differences, allowed by `FoundationComparison` (which lists them) and pinned
/// down in `DocumentedDifferenceTests` and `FoundationAllowanceTests`: other encodings and a
/// byte order mark, numbers beyond Double's range, trailing commas, U+FEFF at the start of a
/// string run, and Foundation's inexact Double conversions.
struct DifferentialTests {
    static let validLines = 2_000
    static let mutatedLines = 4_000

    @Test func generatedValidLinesAgreeWithFoundation() throws {
        var gen = JSONTextGenerator(seed: 0x5EED_0001)
        for n in 0..<Self.validLines {
            let line = Array(gen.documentText().utf8)
            let verdict = try #require(Self.compare(line))
            #expect(verdict.valid, "generated line \(n) must be valid: \(Self.show(line))")
        }
    }

    @Test func mutatedLinesAgreeWithFoundation() {
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
        #expect(invalid > Self.mutatedLines / 2)
        #expect(valid > 50)
        #expect(skipped < Self.mutatedLines / 20)
        #expect(trailingComma > 0, "the trailing-comma mutation must be exercised")
    }

    struct Verdict {
        var valid: Bool
        var trailingComma = false
        var hugeNumber = false
    }

    /// Checks one line with every JSONCore entry point and with Foundation; records a failure on
    /// any disagreement. Returns nil when the line is outside what can be compared.
    static func compare(_ line: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Verdict? {
        guard let outcome = FoundationComparison.compare(line) else { return nil }
        let text = show(line)
        for problem in outcome.problems {
            Issue.record("\(problem): \(text)", sourceLocation: sourceLocation)
        }
        let verdict = Verdict(valid: outcome.valid, trailingComma: outcome.trailingComma, hugeNumber: outcome.hugeNumber)
        let parsed: JSONValue?
        do { parsed = try JSONParser.parse(line) } catch { parsed = nil }
        let scannerValid = line.withUnsafeBufferPointer { (try? JSONScanner.validate($0)) != nil }
        let layoutResult: Result<ObjectLayout, JSONError> = line.withUnsafeBufferPointer { buffer in
            do throws(JSONError) { return .success(try ObjectLayout.scanDocument(buffer)) } catch { return .failure(error) }
        }
        #expect((parsed != nil) == outcome.valid, "parser verdict: \(text)", sourceLocation: sourceLocation)
        #expect(scannerValid == (parsed != nil), "scanner and parser disagree: \(text)", sourceLocation: sourceLocation)
        switch (layoutResult, parsed) {
        case (.success(let layout), .some(.object(let object))):
            #expect(layout.members.count == object.count, "layout member count: \(text)", sourceLocation: sourceLocation)
        case (.failure(let error), .some(let value)):
            #expect(error.kind == .unexpectedType, "layout rejects valid JSON: \(text)", sourceLocation: sourceLocation)
            #expect(value.objectValue == nil, "layout rejects an object: \(text)", sourceLocation: sourceLocation)
        case (.success, _):
            Issue.record("layout accepts what the parser rejects: \(text)", sourceLocation: sourceLocation)
        case (.failure(let error), .none):
            #expect(error.kind != .unexpectedType, "invalid JSON reported as wrong type: \(text)", sourceLocation: sourceLocation)
        }
        return verdict
    }

    static func show(_ line: [UInt8]) -> String {
        let s = String(decoding: line.prefix(300), as: UTF8.self).debugDescription
        return line.count > 300 ? s + "...(\(line.count) bytes)" : s
    }
}
