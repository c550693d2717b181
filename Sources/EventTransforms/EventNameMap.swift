import JSONCore

/// The renames of a `map_events` step: old event name to new, matched by exact UTF-8 bytes.
///
/// Looked up straight from an event's bytes, without making a string: names are grouped by
/// their length in bytes, then compared.
package struct EventNameMap: Sendable, Equatable {
    /// The renames, in the configured order.
    package let pairs: [(from: String, to: String)]
    /// For each length in bytes, the old names of that length (as bytes) and their new names.
    private let byLength: [Int: [(from: [UInt8], to: String)]]

    /// A map of these renames; a later pair with the same old name replaces an earlier one.
    package init(_ pairs: [(from: String, to: String)]) {
        self.pairs = pairs
        var grouped: [Int: [(from: [UInt8], to: String)]] = [:]
        for (from, to) in pairs {
            let bytes = Array(from.utf8)
            grouped[bytes.count, default: []].removeAll { $0.from == bytes }
            grouped[bytes.count, default: []].append((bytes, to))
        }
        byLength = grouped
    }

    /// The new name for the old name whose UTF-8 bytes are `name`, if it is mapped.
    func newName(for name: UnsafeBufferPointer<UInt8>) -> String? {
        guard let candidates = byLength[name.count] else { return nil }
        for c in candidates where c.from.elementsEqual(name) { return c.to }
        return nil
    }

    /// Whether two maps have the same pairs, in the same order (names compared by bytes).
    package static func == (a: EventNameMap, b: EventNameMap) -> Bool {
        a.pairs.count == b.pairs.count
            && zip(a.pairs, b.pairs).allSatisfy { $0.from.utf8.elementsEqual($1.from.utf8) && $0.to.utf8.elementsEqual($1.to.utf8) }
    }
}
