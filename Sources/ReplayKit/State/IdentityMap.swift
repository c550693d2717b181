/// One identity table in memory: every mapping learned (committed or not) and a bounded cache of
/// committed rows, in ONE dictionary, so that a lookup costs one hash probe.
///
/// `values` always holds the newest value of a key. `uncommitted` remembers, for keys whose
/// newest value was learned but not yet committed, the sequence of the line that taught it; it
/// is small (it empties at each commit) and is only read when committing or evicting. An empty
/// value records that SQLite has no row for the key. Not thread-safe: owned by ``IdentityStore``.
struct IdentityMap {
    /// What a lookup found.
    enum Lookup: Equatable {
        case value(String)
        /// Definitely no mapping.
        case absent
        /// Not in memory: ask SQLite.
        case unknown
    }

    private(set) var values: [String: String] = [:]
    private(set) var uncommitted: [String: UInt64] = [:]
    /// At most this many entries are kept; when full, every committed entry is dropped.
    var limit = 262_144
    /// While true, the map holds EVERY committed row of its table (the table was empty when
    /// opened or forgotten, each row since came through a commit, and nothing was evicted), so a
    /// miss is a definite "absent" and SQLite is not asked. Cleared for good by an eviction.
    var isComplete = false

    /// The newest value for `key`.
    func lookup(_ key: String) -> Lookup {
        if let v = values[key] { return v.isEmpty ? .absent : .value(v) }
        return isComplete ? .absent : .unknown
    }

    /// Records a mapping learned from line `sequence`, effective for lookups at once.
    mutating func learn(_ key: String, _ value: String, sequence: UInt64) {
        makeRoom()
        values[key] = value
        uncommitted[key] = sequence
    }

    /// Records what SQLite holds for `key` (`""`: no row). Only called after a lookup missed,
    /// so no newer value is in memory.
    mutating func remember(_ key: String, committedValue value: String) {
        makeRoom()
        values[key] = value
    }

    /// The mapping learned from line `sequence` for `key` is now in SQLite, unless a later line
    /// replaced it (that one stays uncommitted).
    mutating func markCommitted(_ key: String, sequence: UInt64) {
        if let i = uncommitted.index(forKey: key), uncommitted.values[i] == sequence { uncommitted.remove(at: i) }
    }

    /// Drops everything; the table is empty again.
    mutating func reset() {
        values.removeAll()
        uncommitted.removeAll()
        isComplete = true
    }

    /// When full, evicts every committed entry (uncommitted ones exist nowhere else). While
    /// uncommitted entries alone fill much of the map, it waits until the map doubled them, so
    /// eviction stays amortized O(1) per insert.
    private mutating func makeRoom() {
        guard values.count >= max(limit, 2 * uncommitted.count) else { return }
        values = values.filter { uncommitted[$0.key] != nil }
        isComplete = false
    }
}
