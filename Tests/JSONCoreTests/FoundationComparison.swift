import Foundation
import JSONCore

/// Compares JSONCore with Foundation's `JSONSerialization` (swift-corelibs on Linux) on the same
/// bytes, allowing only the documented differences. `DifferentialTests` and the `jsoncore` fuzz
/// target (`Fuzz/fuzz.sh` compiles this file into its harness) both use it, so the tests and the
/// fuzzer allow exactly the same things. It imports nothing but Foundation and JSONCore.
///
/// The documented differences (pinned down in `DocumentedDifferenceTests` and
/// `FoundationAllowanceTests`):
/// - Foundation guesses UTF-16/UTF-32 when one of the first four bytes is NUL and skips a UTF-8
///   byte order mark; JSONCore only reads UTF-8 and rejects both. Such lines are not compared.
/// - Numbers beyond Double's range (e.g. `1e400`): Foundation rejects the document, JSONCore
///   keeps the number as exact text. Counted, not failed.
/// - Foundation accepts a trailing comma before `}` or `]`; RFC 8259 does not, and neither does
///   JSONCore. Such lines must parse in JSONCore to Foundation's value once the commas are removed.
/// - Foundation decodes each run of a string between escapes on its own, and its UTF-8 decoding
///   drops a U+FEFF at the start of a run as a byte order mark: a raw U+FEFF at the very start of a
///   string or key, or right after an escape (`"\n<U+FEFF>"` reads as `"\n"`), is lost. JSONCore
///   keeps it, as RFC 8259 requires. ``foundationText(_:)`` removes exactly those.
/// - Numbers compare numerically (Foundation has no exact number type): see ``numberDifference(_:_:path:)``.
/// - Objects compare as Foundation sees them: one value per key (Foundation's dictionaries merge
///   keys by `String ==`), the last duplicate winning.
enum FoundationComparison {
    /// What comparing one line found.
    struct Outcome {
        /// Whether JSONCore accepts the line.
        var valid: Bool
        /// Foundation accepted the line only through its trailing-comma leniency.
        var trailingComma = false
        /// JSONCore accepted a number that Foundation rejects as out of range.
        var hugeNumber = false
        /// Disagreements beyond the documented differences (empty when the two agree).
        var problems: [String] = []
    }

    /// Parses `line` with JSONCore and Foundation and compares verdicts and values. Returns nil
    /// when Foundation would not read the line as UTF-8 (nothing to compare).
    static func compare(_ line: [UInt8]) -> Outcome? {
        guard foundationReadsAsUTF8(line) else { return nil }
        let foundation = try? JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])
        let parsed = try? JSONParser.parse(line)
        switch (parsed, foundation) {
        case (nil, nil):
            return Outcome(valid: false)
        case (nil, let theirs?):
            // The only accepted disagreement: Foundation's trailing-comma leniency.
            let stripped = withoutTrailingCommas(line)
            guard stripped != line, (try? JSONParser.parse(stripped)) != nil else {
                return Outcome(valid: false, problems: ["Foundation accepts what JSONCore rejects"])
            }
            return Outcome(
                valid: false, trailingComma: true, problems: valueProblems(stripped, theirs, "after removing trailing commas: "))
        case (let ours?, nil):
            if hasNonFiniteNumber(ours) { return Outcome(valid: true, hugeNumber: true) }
            return Outcome(valid: true, problems: ["JSONCore accepts what Foundation rejects"])
        case (_?, let theirs?):
            return Outcome(valid: true, problems: valueProblems(line, theirs, ""))
        }
    }

    /// Compares the JSONCore value of `line` as Foundation reads it (``foundationText(_:)``) with
    /// Foundation's value.
    static func valueProblems(_ line: [UInt8], _ theirs: Any, _ prefix: String) -> [String] {
        guard let view = try? JSONParser.parse(foundationText(line)) else {
            return [prefix + "the line without Foundation's dropped U+FEFFs does not parse"]
        }
        return difference(view, theirs).map { [prefix + "value differs: " + $0] } ?? []
    }

    /// Whether Foundation would read `line` as UTF-8 at all (see the type's comment).
    static func foundationReadsAsUTF8(_ line: [UInt8]) -> Bool {
        if line.starts(with: [0xEF, 0xBB, 0xBF]) { return false }
        return !line.prefix(4).contains(0)
    }

    /// Returns nil when equal, else a description of the first difference. Strings compare
    /// scalar by scalar (no canonical equivalence).
    static func difference(_ ours: JSONValue, _ theirs: Any, path: String = "$") -> String? {
        switch ours {
        case .null:
            return theirs is NSNull ? nil : "\(path): expected null, Foundation has \(theirs)"
        case .bool(let b):
            guard let n = theirs as? NSNumber, n.boolValue == b, n.intValue == (b ? 1 : 0) else {
                return "\(path): expected \(b), Foundation has \(theirs)"
            }
            return nil
        case .number(let num):
            guard let n = theirs as? NSNumber else { return "\(path): expected number \(num), Foundation has \(theirs)" }
            return numberDifference(num, n, path: path)
        case .string(let s):
            guard let t = theirs as? String else { return "\(path): expected string, Foundation has \(theirs)" }
            return s.unicodeScalars.elementsEqual(t.unicodeScalars)
                ? nil : "\(path): string \(s.debugDescription) != \(t.debugDescription)"
        case .array(let items):
            guard let t = theirs as? [Any], t.count == items.count else {
                return "\(path): expected array of \(items.count), Foundation has \(theirs)"
            }
            for (k, item) in items.enumerated() {
                if let d = difference(item, t[k], path: "\(path)[\(k)]") { return d }
            }
            return nil
        case .object(let object):
            return objectDifference(object, theirs, path: path)
        }
    }

    static func objectDifference(_ object: JSONObject, _ theirs: Any, path: String) -> String? {
        guard let t = theirs as? [String: Any] else { return "\(path): expected object, Foundation has \(theirs)" }
        var lastWins: [String: JSONValue] = [:]
        for m in object.members { lastWins[m.key] = m.value }
        guard lastWins.count == t.count else {
            return "\(path): \(lastWins.count) distinct keys, Foundation has \(t.count)"
        }
        for (key, value) in lastWins {
            guard let other = t[key] else { return "\(path): key \(key.debugDescription) missing in Foundation" }
            if let d = difference(value, other, path: "\(path).\(key)") { return d }
        }
        return nil
    }

    /// `line` without the raw U+FEFFs Foundation drops: one at the start of each string (keys
    /// included) and one right after each escape sequence. Bytes outside strings, and invalid
    /// text, are copied unchanged.
    static func foundationText(_ line: [UInt8]) -> [UInt8] {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        var out: [UInt8] = []
        out.reserveCapacity(line.count)
        var k = 0
        var inString = false
        var runStart = false  // at the start of a string or right after an escape
        while k < line.count {
            let c = line[k]
            if inString, runStart, line[k...].starts(with: bom) {
                k += 3
                runStart = false
                continue
            }
            runStart = false
            if !inString {
                inString = c == UInt8(ascii: "\"")
                runStart = inString
            } else if c == UInt8(ascii: "\"") {
                inString = false
            } else if c == UInt8(ascii: "\\") {
                let end = min(k + (k + 1 < line.count && line[k + 1] == UInt8(ascii: "u") ? 6 : 2), line.count)
                out.append(contentsOf: line[k..<end])
                k = end
                runStart = true
                continue
            }
            out.append(c)
            k += 1
        }
        return out
    }

    /// `line` without commas that directly (modulo whitespace) precede `}` or `]` outside strings.
    static func withoutTrailingCommas(_ line: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false
        var escaped = false
        for (k, c) in line.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if c == UInt8(ascii: "\\") {
                    escaped = true
                } else if c == UInt8(ascii: "\"") {
                    inString = false
                }
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

    /// Whether `value` holds a number outside Double's range (Foundation rejects those).
    static func hasNonFiniteNumber(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let n): return !n.doubleValue.isFinite
        case .array(let items): return items.contains(where: hasNonFiniteNumber)
        case .object(let o): return o.members.contains { hasNonFiniteNumber($0.value) }
        default: return false
        }
    }

    /// Integers that fit in Int64 must match exactly, and so must their Double value, except
    /// where Foundation returns an `NSDecimalNumber`: swift-corelibs Foundation reads a negative
    /// integer of 19 digits (and any integer beyond Int64) as `NSDecimalNumber`, whose
    /// `doubleValue` is not correctly rounded. `-2804567890234567890` has the exact `int64Value`
    /// but `doubleValue` -2.804567890234568e18, one ULP from the correctly rounded
    /// -2.8045678902345677e18 (up to 3 ULPs seen, e.g. `-9140544679545605000`). Those, and all
    /// other numbers, must agree to a relative 1e-13: Foundation does not round long decimal
    /// mantissas correctly either (`59053753655332E-13` reads as 5.905375365533201), while
    /// `JSONNumber.doubleValue` uses Swift's correctly rounded `Double(text)`.
    static func numberDifference(_ ours: JSONNumber, _ theirs: NSNumber, path: String) -> String? {
        let mine = ours.doubleValue
        let other = theirs.doubleValue
        let close = mine == other || abs(mine - other) <= 1e-13 * max(abs(mine), abs(other))
        if let i = ours.intValue {
            let exact = theirs.int64Value == Int64(i) && (other == Double(i) || (theirs is NSDecimalNumber && close))
            return exact ? nil : "\(path): integer \(ours.text) != Foundation \(theirs) (\(other))"
        }
        return close ? nil : "\(path): number \(ours.text) = \(mine) != Foundation \(other)"
    }
}
