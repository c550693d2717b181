import JSONCore

/// A ``KeyTable`` with a value per name: what a recipe maps an object's keys to (context fields,
/// renamed keys), found with one probe instead of comparing the key with every name.
struct KeyMap<Value: Sendable>: Sendable {
    private let table: KeyTable
    private let values: [Value]

    /// A map of each name to its value.
    init(_ pairs: [(String, Value)]) {
        table = KeyTable(pairs.map(\.0))
        values = pairs.map(\.1)
    }

    /// The value of `member`'s key; nil when it is none of the names.
    @inline(__always)
    subscript(_ buffer: UnsafeBufferPointer<UInt8>, _ member: MemberRef) -> Value? {
        table.field(of: member, in: buffer).map { values[$0] }
    }
}

extension KeyTable {
    /// The field number of `member`'s key, decoding a key that holds escapes.
    @inline(__always)
    func field(of member: MemberRef, in buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        guard member.keyHasEscapes else { return field(buffer, member.key) }
        var decoded = JSONStrings.decode(buffer, member.key, hasEscapes: true)
        return decoded.withUTF8 { field($0, 0..<$0.count) }
    }
}
