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

    private(set) var values: [IdentityKey: String] = [:]
    private(set) var uncommitted: [IdentityKey: UInt64] = [:]
    /// At most this many committed entries are kept; beyond that, every committed entry is dropped.
    var limit = 262_144
    /// While true, the map holds EVERY committed row of its table (the table was empty when
    /// opened or forgotten, each row since came through a commit, and nothing was evicted), so a
    /// miss is a definite "absent" and SQLite is not asked. Cleared for good by an eviction.
    var isComplete = false

    /// The newest value for `key`.
    func lookup(_ key: String) -> Lookup {
        if let v = values[IdentityKey(key)] { return v.isEmpty ? .absent : .value(v) }
        return isComplete ? .absent : .unknown
    }

    /// Records a mapping learned from line `sequence`, effective for lookups at once.
    mutating func learn(_ key: String, _ value: String, sequence: UInt64) {
        makeRoom()
        values[IdentityKey(key)] = value
        uncommitted[IdentityKey(key)] = sequence
    }

    /// Records what SQLite holds for `key` (`""`: no row). Only called after a lookup missed,
    /// so no newer value is in memory.
    mutating func remember(_ key: String, committedValue value: String) {
        makeRoom()
        values[IdentityKey(key)] = value
    }

    /// The mapping learned from line `sequence` for `key` is now in SQLite, unless a later line
    /// replaced it (that one stays uncommitted).
    mutating func markCommitted(_ key: String, sequence: UInt64) {
        if let i = uncommitted.index(forKey: IdentityKey(key)), uncommitted.values[i] == sequence { uncommitted.remove(at: i) }
    }

    /// Drops everything; the table is empty again.
    mutating func reset() {
        values.removeAll()
        uncommitted.removeAll()
        isComplete = true
    }

    /// When `limit` committed entries are kept, evicts every committed entry (uncommitted ones
    /// exist nowhere else). Each eviction is followed by at least `limit` inserts before the
    /// next, so it stays amortized O(1) per insert.
    private mutating func makeRoom() {
        guard values.count >= uncommitted.count + limit else { return }
        values = values.filter { uncommitted[$0.key] != nil }
        isComplete = false
    }
}
