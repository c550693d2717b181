/// A JSON value that round-trips exactly.
///
/// Numbers keep their original text, so integers stay integers and no precision is lost.
/// Objects keep their members in document order.
public enum JSONValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string payload, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The object payload, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The array payload, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The boolean payload, if this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// Whether this is JSON `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Parses one JSON document (any value, surrounded by optional whitespace).
    public init(parsing bytes: some Collection<UInt8>) throws(JSONError) {
        self = try JSONParser.parse(bytes)
    }

    /// Parses one JSON document from a string.
    public init(parsing text: String) throws(JSONError) {
        self = try JSONParser.parse(Array(text.utf8))
    }

    /// The compact encoding of this value.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        JSONWriter.write(self, into: &out)
        return out
    }

    /// The compact encoding of this value as a string.
    public var encodedString: String { String(decoding: encoded, as: UTF8.self) }

    /// Exact equality: strings compare by their UTF-8 bytes (not canonical equivalence) and
    /// numbers by their text, so equal values encode to equal bytes.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        default: return false
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}

/// A JSON number stored as its exact source text.
public struct JSONNumber: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The number exactly as written, for example `42`, `-0.5` or `1e3`.
    public let text: String

    /// Wraps already-validated JSON number text.
    public init(uncheckedText text: String) { self.text = text }

    /// An integer number.
    public init(_ value: Int) { self.text = String(value) }

    /// A floating-point number. Non-finite values have no JSON form and become `0`.
    public init(_ value: Double) {
        if !value.isFinite {
            self.text = "0"
        } else if value == value.rounded(), abs(value) < 1e15 {
            self.text = String(Int64(value))
        } else {
            self.text = "\(value)"
        }
    }

    /// Whether the text has no fraction or exponent.
    public var isInteger: Bool { !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }

    /// The value as an integer, when it is one and fits.
    public var intValue: Int? { isInteger ? Int(text) : nil }

    /// The value as a double.
    public var doubleValue: Double { Double(text) ?? .nan }

    public var description: String { text }
}

/// A JSON object whose members keep their document order.
///
/// Lookups return the last member with a key, which is how most JSON readers treat duplicates.
/// Keys match by their exact Unicode scalars (UTF-8 bytes), as in ``ObjectLayout`` and
/// ``ObjectEditor``: `"é"` and `"e\u{301}"` are different keys, although Swift's `String ==`
/// treats them as canonically equivalent.
public struct JSONObject: Sendable, Equatable, Hashable, Sequence {
    /// The members, in order.
    public var members: [(key: String, value: JSONValue)]

    /// An empty object.
    public init() { members = [] }

    /// An object with these members, in this order.
    public init(_ members: [(key: String, value: JSONValue)]) { self.members = members }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The keys, in order.
    public var keys: [String] { members.map(\.key) }

    /// Reads, replaces, appends or (with `nil`) removes a member.
    public subscript(key: String) -> JSONValue? {
        get { members.last(where: { Self.sameKey($0.key, key) })?.value }
        set {
            if let newValue {
                if let i = members.lastIndex(where: { Self.sameKey($0.key, key) }) {
                    members[i].value = newValue
                } else {
                    members.append((key: key, value: newValue))
                }
            } else {
                members.removeAll { Self.sameKey($0.key, key) }
            }
        }
    }

    /// Whether two keys are the same JSON key: equal UTF-8 bytes, not just canonically equivalent.
    static func sameKey(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (a, b) in zip(lhs.members, rhs.members) where !sameKey(a.key, b.key) || a.value != b.value {
            return false
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for m in members {
            hasher.combine(m.key)
            hasher.combine(m.value)
        }
    }
}
