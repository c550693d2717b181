import JSONCore

/// What `ObjectEditor` documents, on plain values: keys match by UTF-8 bytes; `set` on a key of
/// the original replaces its last occurrence in place (restoring it if it was removed) and drops
/// the others, else it updates or appends a new member; `remove` drops every member with the key.
/// The rendered object holds the original members in order, then the appended ones.
struct EditorModel {
    struct Entry {
        var key: [UInt8]
        var value: JSONValue
        /// The member's index in the original object, nil for an appended member.
        var origin: Int?
        /// Whether the value was replaced (an original member that is not must render byte for byte).
        var replaced = false
    }

    let original: [(key: [UInt8], value: JSONValue)]
    private(set) var entries: [Entry]

    init(_ object: JSONObject) {
        original = object.members.map { (Array($0.key.utf8), $0.value) }
        entries = original.enumerated().map { Entry(key: $0.element.key, value: $0.element.value, origin: $0.offset) }
    }

    /// `remove(_:in:)`: returns whether the original object has the key.
    mutating func remove(_ key: [UInt8]) -> Bool {
        entries.removeAll { $0.key == key }
        return original.contains { $0.key == key }
    }

    mutating func remove(at index: Int) { entries.removeAll { $0.origin == index } }

    mutating func set(_ key: [UInt8], _ value: JSONValue) {
        if let idx = original.lastIndex(where: { $0.key == key }) {
            entries.removeAll { $0.key == key && $0.origin != idx }
            replace(at: idx, value)
        } else if let e = entries.firstIndex(where: { $0.key == key }) {
            entries[e].value = value
        } else {
            entries.append(Entry(key: key, value: value, origin: nil))
        }
    }

    /// `replace(at:raw:)`: the member at `index` gets `value`, restored at its place if removed.
    mutating func replace(at index: Int, _ value: JSONValue) {
        if let e = entries.firstIndex(where: { $0.origin == index }) {
            entries[e].value = value
            entries[e].replaced = true
        } else {
            let at = entries.firstIndex { ($0.origin ?? Int.max) > index } ?? entries.count
            entries.insert(Entry(key: original[index].key, value: value, origin: index, replaced: true), at: at)
        }
    }
}
