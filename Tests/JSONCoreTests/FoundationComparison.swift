import Foundation
import JSONCore

/// Compares a JSONCore tree with what `JSONSerialization` produced for the same bytes.
///
/// Foundation has no exact number type, so numbers compare numerically: integers that fit in
/// Int64 must match exactly; everything else must be the same `Double` (both sides round the
/// decimal text to the nearest double). Objects compare as Foundation sees them: one value per
/// key, the last duplicate winning. Strings compare scalar by scalar (no canonical equivalence).
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
            return Array(s.unicodeScalars) == Array(t.unicodeScalars)
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
    }

    static func numberDifference(_ ours: JSONNumber, _ theirs: NSNumber, path: String) -> String? {
        if let i = ours.intValue {
            return theirs.int64Value == Int64(i) && theirs.doubleValue == Double(i)
                ? nil : "\(path): integer \(ours.text) != Foundation \(theirs)"
        }
        let mine = ours.doubleValue
        let other = theirs.doubleValue
        if mine == other { return nil }
        return "\(path): number \(ours.text) = \(mine) != Foundation \(other)"
    }
}
