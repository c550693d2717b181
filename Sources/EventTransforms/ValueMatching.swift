import JSONCore

extension JSONValue {
    /// Whether this value equals `other` for a `keep`/`drop` condition: as ``JSONValue/==``
    /// (strings by UTF-8 bytes, objects member by member in order), except that numbers compare
    /// by value: `1`, `1.0` and `1e0` match. Two integers compare exactly by their digits, so
    /// 64-bit ids never match a neighbour; otherwise numbers compare as doubles.
    package func matches(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.number(let a), .number(let b)): return Self.sameNumber(a, b)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.matches($1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count
                && zip(a.members, b.members).allSatisfy { $0.key.utf8.elementsEqual($1.key.utf8) && $0.value.matches($1.value) }
        default: return self == other
        }
    }

    /// Numeric equality of two JSON numbers (see ``matches(_:)``).
    static func sameNumber(_ a: JSONNumber, _ b: JSONNumber) -> Bool {
        if a.text == b.text { return true }
        if a.isInteger && b.isInteger { return canonicalInteger(a.text) == canonicalInteger(b.text) }
        return a.doubleValue == b.doubleValue
    }

    /// Integer text without a minus sign on zero (`-0` is `0`); JSON allows no leading zeros.
    private static func canonicalInteger(_ text: String) -> String {
        text == "-0" ? "0" : text
    }
}
