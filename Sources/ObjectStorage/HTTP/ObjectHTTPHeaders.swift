/// HTTP header fields, in order; names are compared without regard to ASCII case.
package struct ObjectHTTPHeaders: Sendable, Sequence {
    /// The fields, in order.
    private var fields: [(name: String, value: String)]

    /// Headers with these fields, in order.
    package init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// Adds a field (after any of the same name).
    package mutating func add(name: String, value: String) {
        fields.append((name, value))
    }

    /// Removes every field named `name`, then adds one with `value`.
    package mutating func replaceOrAdd(name: String, value: String) {
        fields.removeAll { Self.sameName($0.name, name) }
        fields.append((name, value))
    }

    /// The value of the first field named `name` (any case), if there is one.
    package func first(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Whether a field is named `name` (any case).
    package func contains(name: String) -> Bool {
        first(name: name) != nil
    }

    /// The fields, in order.
    package func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Whether two field names are equal, ignoring ASCII case (field names are ASCII).
    static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8) { lower($0) == lower($1) }
    }

    /// An ASCII letter in lower case; any other byte as it is.
    private static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
