import Foundation
import JSONCore

/// Compares a JSONCore tree with what `JSONSerialization` produced for the same bytes.
///
/// Foundation has no exact number type, so numbers compare numerically: integers that fit in
/// Int64 must match exactly. Other numbers must agree to a relative 1e-13: swift-corelibs
/// Foundation on Linux does not round long decimal mantissas correctly (it is often a few ULPs
/// off, e.g. `59053753655332E-13` reads as 5.905375365533201), while `JSONNumber.doubleValue`
/// uses Swift's correctly rounded `Double(text)`. Objects compare as Foundation sees them: one value per
/// key, the last duplicate winning. Strings compare scalar by scalar (no canonical equivalence),
/// except that Foundation drops a U+FEFF at the very start of a string or key (its UTF-8
/// decoding treats it as a byte order mark); JSONCore keeps it, as RFC 8259 requires.
enum FoundationComparison {
    /// Returns nil when equal, else a description of the first difference.
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
            return Array(foundationView(s).unicodeScalars) == Array(t.unicodeScalars)
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
            guard let t = theirs as? [String: Any] else { return "\(path): expected object, Foundation has \(theirs)" }
            var lastWins: [String: JSONValue] = [:]
            for m in object.members { lastWins[foundationView(m.key)] = m.value }
            guard lastWins.count == t.count else {
                return "\(path): \(lastWins.count) distinct keys, Foundation has \(t.count)"
            }
            for (key, value) in lastWins {
                guard let other = t[key] else { return "\(path): key \(key.debugDescription) missing in Foundation" }
                if let d = difference(value, other, path: "\(path).\(key)") { return d }
            }
            return nil
        }
    }

    /// `s` as Foundation reads it: without one leading U+FEFF.
    static func foundationView(_ s: String) -> String {
        s.unicodeScalars.first == "\u{FEFF}" ? String(String.UnicodeScalarView(s.unicodeScalars.dropFirst())) : s
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

    static func numberDifference(_ ours: JSONNumber, _ theirs: NSNumber, path: String) -> String? {
        if let i = ours.intValue {
            return theirs.int64Value == Int64(i) && theirs.doubleValue == Double(i)
                ? nil : "\(path): integer \(ours.text) != Foundation \(theirs)"
        }
        let mine = ours.doubleValue
        let other = theirs.doubleValue
        if mine == other || abs(mine - other) <= 1e-13 * max(abs(mine), abs(other)) { return nil }
        return "\(path): number \(ours.text) = \(mine) != Foundation \(other)"
    }
}
