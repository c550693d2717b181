import Foundation
import JSONCore

/// Bytes kept inline when there are at most 16 (ids usually are), so keeping them touches and
/// allocates no heap memory; longer ones are kept in an array.
struct InlineBytes {
    /// The bytes when there are at most 16, zero-padded.
    private var small: (UInt64, UInt64) = (0, 0)
    private var smallCount: UInt8 = 0
    /// The bytes when there are more than 16.
    private var large: [UInt8]?

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.count <= 16 {
            smallCount = UInt8(bytes.count)
            small = ByteWords.first16(bytes)
        } else {
            large = Array(bytes)
        }
    }

    /// Calls `body` with the bytes.
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let large { return try large.withUnsafeBufferPointer(body) }
        var copy = small
        let n = Int(smallCount)
        return try withUnsafeBytes(of: &copy) { try body(UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n)) }
    }

    /// The bytes as an array.
    var array: [UInt8] { withBytes { Array($0) } }
}

/// A remembered identity value (a userId or groupId) as a JSON string ready to splice into an
/// event, made once when the value is learned or read from SQLite; inline when it is short.
struct IdentityValue {
    private let quoted: InlineBytes

    init(raw: UnsafeBufferPointer<UInt8>) {
        var json: [UInt8] = []
        json.reserveCapacity(raw.count + 2)
        JSONStrings.appendQuotedBytes(raw, to: &json)
        quoted = json.withUnsafeBufferPointer { InlineBytes($0) }
    }

    init(raw: [UInt8]) {
        self = raw.withUnsafeBufferPointer { IdentityValue(raw: $0) }
    }

    /// Calls `body` with the id as a JSON string, with its quotes.
    @inline(__always)
    func withJSON<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try quoted.withBytes(body)
    }

    /// The id as a JSON string.
    var json: [UInt8] { quoted.array }

    /// Calls `body` with the id's bytes: the inside of the quotes, decoded when it has escapes.
    func withRaw<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withJSON { json in
            let inner = UnsafeBufferPointer(rebasing: json[1..<(json.count - 1)])
            guard inner.contains(UInt8(ascii: "\\")) else { return try body(inner) }
            var decoded = JSONStrings.decode(json, 1..<(json.count - 1), hasEscapes: true)
            return try decoded.withUTF8(body)
        }
    }

    /// The id as a String (for the String-facing API).
    var string: String { withRaw { String(decoding: $0, as: UTF8.self) } }
}

/// One identity table in memory: every mapping learned (committed or not) and a bounded cache of
/// committed rows, in ONE open-addressing table keyed by the id's bytes, so a lookup costs one
/// fast hash and two cache lines (a slot, then its entry): no String, no `Hasher`, no
/// allocation, and for keys of up to 16 bytes no key storage of their own.
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

    /// One key and its newest value: 64 bytes, fields ordered so they pack.
    private struct Entry {
        /// The key's first 16 bytes, zero-padded; the whole key when it has at most 16.
        var k0: UInt64
        var k1: UInt64
        /// The key when it has more than 16 bytes.
        var longKey: [UInt8]?
        var value: IdentityValue?
        var keyLength: UInt32
        /// The sequence of the line that taught the value while it is not in SQLite, else
        /// ``IdentityMap/committed``.
        var uncommittedSequence: UInt64

        var uncommitted: UInt64? {
            get { uncommittedSequence == IdentityMap.committed ? nil : uncommittedSequence }
            set { uncommittedSequence = newValue ?? IdentityMap.committed }
        }
    }

    /// ``Entry/uncommittedSequence`` of a committed entry (no line has this sequence).
    static let committed = UInt64.max

    private var entries = BlockArray<Entry>()
    /// Open addressing over `entries`, at most half full (power-of-two size). A slot is the high
    /// 32 bits of its key's hash and its entry's index + 1 (0: empty), so a probe that does not
    /// match rarely touches `entries`.
    private var slots: [UInt64] = Array(repeating: 0, count: 64)
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
        slots = Array(repeating: 0, count: 64)
        uncommittedCount = 0
        isComplete = true
    }

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
        h = (h ^ ByteWords.tail(bytes, from: i)) &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 29)
    }

    private func find(_ key: UnsafeBufferPointer<UInt8>, _ h: UInt64) -> Int? {
        let (q0, q1) = ByteWords.first16(key)
        let tag = h & 0xFFFF_FFFF_0000_0000
        return slots.withUnsafeBufferPointer { slots -> Int? in
            let mask = slots.count - 1
            var s = Int(truncatingIfNeeded: h) & mask
            while true {
                let slot = slots[s]
                if slot == 0 { return nil }
                if slot & 0xFFFF_FFFF_0000_0000 == tag {
                    let e = Int(slot & 0xFFFF_FFFF) - 1
                    if Self.matches(entries[e], key, q0, q1) { return e }
                }
                s = (s + 1) & mask
            }
        }
    }

    @inline(__always)
    private static func matches(_ e: Entry, _ key: UnsafeBufferPointer<UInt8>, _ q0: UInt64, _ q1: UInt64) -> Bool {
        guard Int(e.keyLength) == key.count, e.k0 == q0, e.k1 == q1 else { return false }
        guard let long = e.longKey else { return true }
        return long.withUnsafeBufferPointer { memcmp($0.baseAddress!, key.baseAddress!, key.count) == 0 }
    }

    /// The entry for `key`, inserted (without a value) when missing.
    private mutating func upsert(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        let h = Self.hash(key)
        if let i = find(key, h) { return i }
        makeRoom()
        if (entries.count + 1) * 2 > slots.count { rehash(capacity: slots.count * 2) }
        let (k0, k1) = ByteWords.first16(key)
        entries.append(Entry(
            k0: k0, k1: k1, longKey: key.count > 16 ? Array(key) : nil, value: nil, keyLength: UInt32(key.count),
            uncommittedSequence: Self.committed))
        place(entries.count - 1, hash: h)
        return entries.count - 1
    }

    private mutating func place(_ index: Int, hash h: UInt64) {
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        while slots[s] != 0 { s = (s + 1) & mask }
        slots[s] = (h & 0xFFFF_FFFF_0000_0000) | UInt64(index + 1)
    }

    /// The hash of entry `index`'s key (recomputed: only rehashing needs it).
    private func hash(ofEntry index: Int) -> UInt64 {
        let e = entries[index]
        if let long = e.longKey { return long.withUnsafeBufferPointer { Self.hash($0) } }
        var w = (e.k0, e.k1)
        return withUnsafeBytes(of: &w) { Self.hash(UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: Int(e.keyLength))) }
    }

    private mutating func rehash(capacity: Int) {
        var size = 64
        while size < capacity { size *= 2 }
        slots = Array(repeating: 0, count: size)
        for i in entries.indices { place(i, hash: hash(ofEntry: i)) }
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

/// An array stored in blocks of 4,096 elements: growing it never copies what it holds (so it is
/// never held twice while it grows) and at most one block is partly empty. The identity tables
/// hold up to hundreds of thousands of entries; a plain array doubling at that size briefly needs
/// its old and new storage together, which set the peak RSS of long runs.
struct BlockArray<Element> {
    private static var shift: Int { 12 }
    private static var mask: Int { (1 << shift) - 1 }
    private var blocks: [[Element]] = []
    /// The number of elements.
    private(set) var count = 0

    /// The element at `index` (0 ..< count).
    subscript(index: Int) -> Element {
        get { blocks[index >> Self.shift][index & Self.mask] }
        _modify { yield &blocks[index >> Self.shift][index & Self.mask] }
    }

    var indices: Range<Int> { 0..<count }

    mutating func append(_ element: Element) {
        if count & Self.mask == 0 {
            var block: [Element] = []
            block.reserveCapacity(Self.mask + 1)
            blocks.append(block)
        }
        blocks[blocks.count - 1].append(element)
        count += 1
    }

    mutating func removeAll() {
        blocks = []
        count = 0
    }

    /// Drops the whole blocks before `index` (the elements before it are no longer needed) and
    /// returns how many elements that removed; every index moves down by as many.
    mutating func removeFirstBlocks(upTo index: Int) -> Int {
        let n = min(index, count) >> Self.shift
        guard n > 0 else { return 0 }
        blocks.removeFirst(n)
        count -= n << Self.shift
        return n << Self.shift
    }

    /// Keeps the elements for which `shouldBeRemoved` is false, in order.
    mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) {
        var kept = BlockArray()
        for i in indices where !shouldBeRemoved(self[i]) { kept.append(self[i]) }
        self = kept
    }
}
