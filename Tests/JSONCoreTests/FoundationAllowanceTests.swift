import Foundation
import JSONCore
import Testing

/// The differential comparison's allowances for two Foundation (swift-corelibs, Linux) behaviours:
/// it drops a raw U+FEFF that starts a string run, and it converts some negative 19-digit integers
/// to Double a few ULPs off. Each allowance must cover the case and nothing more, and the
/// generator must produce the case, or the differential test would not exercise it.
@Suite("Foundation differential allowances")
struct FoundationAllowanceTests {
    /// Lines where Foundation loses a raw U+FEFF, with how many JSONCore keeps in the first string.
    static let feffCases: [(text: String, kept: Int)] = [
        ("\"\\n\u{FEFF}\"", 1),  // the issue's example
        ("\"\\n\u{FEFF}x\"", 1),
        ("\"\\u0041\u{FEFF}\"", 1),  // after a \u escape
        ("\"\\uD83D\\uDE00\u{FEFF}\"", 1),  // after a surrogate pair
        ("\"\\\\\u{FEFF}\"", 1),
        ("\"\\n\u{FEFF}\u{FEFF}a\"", 2),  // only the first one goes
        ("\"\u{FEFF}v\"", 1),  // at the start of a string
        ("{\"\\t\u{FEFF}k\":1}", 1),  // in a key
        ("{\"k\":[\"x\\r\u{FEFF}\",\"\u{FEFF}\"]}", 1),
    ]

    @Test("a raw U+FEFF that starts a string run is allowed to differ", arguments: feffCases)
    func feffAfterEscapeIsAllowed(text: String, kept: Int) throws {
        let line = Array(text.utf8)
        let outcome = try #require(FoundationComparison.compare(line))
        #expect(outcome.valid)
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
        // JSONCore keeps every U+FEFF, as RFC 8259 says.
        let value = try JSONParser.parse(line)
        #expect(Self.firstString(value).unicodeScalars.filter { $0 == "\u{FEFF}" }.count == kept)
        #expect(FoundationComparison.foundationText(line) != line)
    }

    @Test("an escaped U+FEFF and one inside a run are kept for the comparison")
    func otherFEFFsAreCompared() {
        for text in ["\"\\n\\uFEFF\"", "\"a\u{FEFF}\"", "\"\\uFEFF\"", "[\u{FEFF}]"] {
            let line = Array(text.utf8)
            #expect(FoundationComparison.foundationText(line) == line, "\(text.debugDescription)")
        }
        // The comparison itself stays exact: a lost U+FEFF is a difference.
        #expect(FoundationComparison.difference(.string("\n\u{FEFF}"), "\n") != nil)
    }

    @Test("the generator produces a raw U+FEFF right after an escape")
    func generatorProducesFEFFAfterEscape() {
        var gen = JSONTextGenerator(seed: 0x5EED_0001)  // the seed of the valid-lines differential test
        let lines = (0..<2_000).map { _ in Array(gen.documentText().utf8) }
        #expect(lines.filter(Self.hasFEFFAfterEscape).count >= 20)
    }

    /// Negative 19-digit integers that Foundation returns as `NSDecimalNumber` with an inexact
    /// `doubleValue` (1, 2 and 3 ULPs off).
    static let decimalIntegers = ["-2804567890234567890", "-1756613430626213500", "-9140544679545605000"]

    @Test("a negative 19-digit integer may be a few ULPs off as a Double", arguments: decimalIntegers)
    func negative19DigitIntegerIsAllowed(text: String) throws {
        let outcome = try #require(FoundationComparison.compare(Array(text.utf8)))
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
        guard case .number(let n) = try JSONParser.parse(Array(text.utf8)) else {
            Issue.record("a number was expected")
            return
        }
        #expect(n.intValue == Int(text), "JSONCore keeps the integer exactly")
        // But the integer itself must still match exactly.
        let off = Int64(text)! + 1
        #expect(FoundationComparison.numberDifference(n, NSDecimalNumber(string: String(off)), path: "$") != nil)
        #expect(FoundationComparison.numberDifference(n, NSNumber(value: Double(text)!.nextUp), path: "$") != nil)
    }

    @Test("the generator produces negative 19-digit integers")
    func generatorProducesNegative19DigitIntegers() {
        var gen = JSONTextGenerator(seed: 0x5EED_0001)
        let numbers = (0..<5_000).map { _ in gen.numberText() }
        #expect(numbers.filter { $0.hasPrefix("-") && $0.count == 20 && Int64($0) != nil }.count >= 10)
    }

    /// The first string in `value` (depth first, keys before values).
    static func firstString(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): return s
        case .array(let items): return items.lazy.map(firstString).first { !$0.isEmpty } ?? ""
        case .object(let o): return o.members.first.map { $0.key.contains("\u{FEFF}") ? $0.key : firstString($0.value) } ?? ""
        default: return ""
        }
    }

    /// Whether `line` holds an escape sequence directly followed by a raw U+FEFF.
    static func hasFEFFAfterEscape(_ line: [UInt8]) -> Bool {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        for k in line.indices where line[k] == UInt8(ascii: "\\") && k + 1 < line.count {
            let end = k + (line[k + 1] == UInt8(ascii: "u") ? 6 : 2)
            if end <= line.count, line[end...].starts(with: bom) { return true }
        }
        return false
    }
}
