import Foundation
import JSONCore

/// A remembered identity value (a userId or groupId) as a JSON string ready to splice into an
/// event, made once when the value is learned or read from SQLite. A value of at most 16 bytes
/// as JSON (ids usually are) is kept inline, so reading it touches no heap memory; a longer one
/// is kept in an array.
struct IdentityValue {
    /// The JSON string's bytes when it has at most 16, zero-padded.
    private var small: (UInt64, UInt64) = (0, 0)
    private var smallCount: UInt8 = 0
    /// The JSON string when it has more than 16 bytes.
    private var large: [UInt8]?

    init(raw: UnsafeBufferPointer<UInt8>) {
        var quoted: [UInt8] = []
        quoted.reserveCapacity(raw.count + 2)
        JSONStrings.appendQuotedBytes(raw, to: &quoted)
        if quoted.count <= 16 {
            smallCount = UInt8(quoted.count)
            withUnsafeMutableBytes(of: &small) { $0.copyBytes(from: quoted) }
        } else {
            large = quoted
        }
    }

    init(raw: [UInt8]) {
        self = raw.withUnsafeBufferPointer { IdentityValue(raw: $0) }
    }

    /// Calls `body` with the id as a JSON string, with its quotes.
    @inline(__always)
    func withJSON<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let large { return try large.withUnsafeBufferPointer(body) }
        var copy = small
        let n = Int(smallCount)
        return try withUnsafeBytes(of: &copy) { try body(UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n)) }
    }

    /// The id as a JSON string.
    var json: [UInt8] { withJSON { Array($0) } }

    /// Calls `body` with the id's bytes: the inside of the quotes, decoded when it has escapes.
    func withRaw<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withJSON { json in
            let inner = UnsafeBufferPointer(rebasing: json[1..<(json.count - 1)])
            guard inner.contains(UInt8(ascii: "\\")) else { return try body(inner) }
            var decoded = JSONStrings.decode(json, 1..<(json.count - 1), hasEscapes: true)
            return try decoded.withUTF8(body)
        }
    }

    /// The id's bytes.
    var raw: [UInt8] { withRaw { Array($0) } }

    /// The id as a String (for the String-facing API).
    var string: String { withRaw { String(decoding: $0, as: UTF8.self) } }
}

/// One identity table in memory: every mapping learned (committed or not) and a bounded cache of
/// committed rows, in ONE open-addressing table keyed by the id's bytes, so a lookup costs one
/// fast hash and (usually) one byte comparison: no String, no `Hasher`, no allocation.
///
/// Each entry holds the newest value of its key; `uncommitted` is the sequence of the line that
/// taught it while that value is not yet in SQLite. An entry without a value records that SQLite
/// has no row for the key. Ids are compared as bytes, as SQLite's `TEXT PRIMARY KEY` compares
/// them. Not thread-safe: owned by ``IdentityStore``.
struct IdentityMap {
    /// What a lookup found.
    enum Lookup {
        case value(IdentityValue)
        /// Definitely no mapping.
        case absent
        /// Not in memory: ask SQLite.
        case unknown
    }

    private struct Entry {
        let hash: UInt64
        let key: [UInt8]
        var value: IdentityValue?
        var uncommitted: UInt64?
    }

    private var entries: [Entry] = []
    /// Open addressing over `entries`, at most half full (power-of-two size). A slot holds its
    /// entry's hash and, for keys of at most 16 bytes (ids usually are), the key itself, so a
    /// lookup reads one cache line instead of the entry and the key's own storage.
    private var slots: [Slot] = Array(repeating: Slot(), count: 64)

    /// One slot of the table (`index` 0: empty).
    private struct Slot {
        var hash: UInt64 = 0
        /// The key's first 16 bytes, zero-padded.
        var k0: UInt64 = 0
        var k1: UInt64 = 0
        /// The entry's index + 1 (low 32 bits) and the key's length (high 32 bits).
        var indexAndLength: UInt64 = 0
    }

    /// A key's first 16 bytes as two zero-padded words.
    @inline(__always)
    private static func words(_ key: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        var w: (UInt64, UInt64) = (0, 0)
        let n = min(key.count, 16)
        if n > 0 { withUnsafeMutableBytes(of: &w) { $0.baseAddress!.copyMemory(from: key.baseAddress!, byteCount: n) } }
        return w
    }

    private var uncommittedCount = 0
    /// At most this many committed entries are kept; beyond that, every committed entry is dropped.
    var limit = 262_144
    /// While true, the map holds EVERY committed row of its table (the table was empty when
    /// opened or forgotten, each row since came through a commit, and nothing was evicted), so a
    /// miss is a definite "absent" and SQLite is not asked. Cleared for good by an eviction.
    var isComplete = false

    /// The newest value for `key`.
    func lookup(_ key: UnsafeBufferPointer<UInt8>) -> Lookup {
        if let i = find(key, Self.hash(key)) {
            return entries[i].value.map { .value($0) } ?? .absent
        }
        return isComplete ? .absent : .unknown
    }

    /// Records a mapping learned from line `sequence`, effective for lookups at once.
    mutating func learn(_ key: UnsafeBufferPointer<UInt8>, _ value: IdentityValue, sequence: UInt64) {
        let i = upsert(key)
        if entries[i].uncommitted == nil { uncommittedCount += 1 }
        entries[i].value = value
        entries[i].uncommitted = sequence
    }

    /// Records what SQLite holds for `key` (nil: no row). Only called after a lookup missed, so
    /// no newer value is in memory.
    mutating func remember(_ key: UnsafeBufferPointer<UInt8>, committedValue value: IdentityValue?) {
        let i = upsert(key)
        entries[i].value = value
    }

    /// The mapping learned from line `sequence` for `key` is now in SQLite, unless a later line
    /// replaced it (that one stays uncommitted).
    mutating func markCommitted(_ key: UnsafeBufferPointer<UInt8>, sequence: UInt64) {
        guard let i = find(key, Self.hash(key)), entries[i].uncommitted == sequence else { return }
        entries[i].uncommitted = nil
        uncommittedCount -= 1
    }

    /// Drops everything; the table is empty again.
    mutating func reset() {
        entries.removeAll()
        slots = Array(repeating: Slot(), count: 64)
        uncommittedCount = 0
        isComplete = true
    }

    /// Entries in memory (committed and uncommitted).
    var count: Int { entries.count }

    // MARK: - The table

    /// A fast 64-bit hash of `bytes`, eight bytes at a time (not stable across versions: memory only).
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        guard let base = bytes.baseAddress else { return h }
        let raw = UnsafeRawPointer(base)
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            tail |= UInt64(base[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 29)
    }

    private func find(_ key: UnsafeBufferPointer<UInt8>, _ h: UInt64) -> Int? {
        let (q0, q1) = Self.words(key)
        let length = UInt64(key.count) << 32
        return slots.withUnsafeBufferPointer { slots -> Int? in
            let mask = slots.count - 1
            var s = Int(truncatingIfNeeded: h) & mask
            while true {
                let slot = slots[s]
                if slot.indexAndLength == 0 { return nil }
                if slot.hash == h, slot.indexAndLength & 0xFFFF_FFFF_0000_0000 == length, slot.k0 == q0, slot.k1 == q1 {
                    let e = Int(slot.indexAndLength & 0xFFFF_FFFF) - 1
                    if key.count <= 16 || Self.equal(entries[e].key, key) { return e }
                }
                s = (s + 1) & mask
            }
        }
    }

    private static func equal(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBufferPointer { memcmp($0.baseAddress!, b.baseAddress!, a.count) == 0 }
    }

    /// The entry for `key`, inserted (without a value) when missing.
    private mutating func upsert(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        let h = Self.hash(key)
        if let i = find(key, h) { return i }
        makeRoom()
        if (entries.count + 1) * 2 > slots.count { rehash(capacity: slots.count * 2) }
        entries.append(Entry(hash: h, key: Array(key), value: nil, uncommitted: nil))
        place(entries.count - 1)
        return entries.count - 1
    }

    private mutating func place(_ index: Int) {
        let mask = slots.count - 1
        let e = entries[index]
        var s = Int(truncatingIfNeeded: e.hash) & mask
        while slots[s].indexAndLength != 0 { s = (s + 1) & mask }
        let (k0, k1) = e.key.withUnsafeBufferPointer { Self.words($0) }
        slots[s] = Slot(hash: e.hash, k0: k0, k1: k1, indexAndLength: UInt64(e.key.count) << 32 | UInt64(index + 1))
    }

    private mutating func rehash(capacity: Int) {
        var size = 64
        while size < capacity { size *= 2 }
        slots = Array(repeating: Slot(), count: size)
        for i in entries.indices { place(i) }
    }

    /// When `limit` committed entries are kept, evicts every committed entry (uncommitted ones
    /// exist nowhere else). Each eviction is followed by at least `limit` inserts before the
    /// next, so it stays amortized O(1) per insert.
    private mutating func makeRoom() {
        guard entries.count >= uncommittedCount + limit else { return }
        entries.removeAll { $0.uncommitted == nil }
        rehash(capacity: entries.count * 4)
        isComplete = false
    }
}
