import CPrefetch
import Foundation
import JSONCore
@_spi(PerLine) import MetaRouterDelivery

/// A remembered identity value (a userId or groupId) as a JSON string ready to splice into an
/// event, made once when the value is learned or read from SQLite; inline when it is short or a
/// UUID (``InlineBytes``).
package struct IdentityValue: Equatable {
    private let quoted: InlineBytes

    init(raw: UnsafeBufferPointer<UInt8>) {
        // Nearly every id needs no escape and is short or a UUID: it is quoted on the stack, so
        // learning its mapping allocates nothing (a longer one is copied once, by InlineBytes).
        let room = InlineBytes.uuidTextCount + 2
        if raw.count + 2 <= room, !raw.contains(where: JSONStrings.needsEscape) {
            quoted = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { room in
                // room holds uuidTextCount + 2 bytes and raw.count + 2 fit in it, so the quotes and
                // the id fit; only those initialized bytes are read, through `filled`.
                let base = room.baseAddress!
                base.initialize(to: UInt8(ascii: "\""))
                if raw.count > 0 { (base + 1).initialize(from: raw.baseAddress!, count: raw.count) }
                (base + raw.count + 1).initialize(to: UInt8(ascii: "\""))
                let filled = UnsafeBufferPointer(start: UnsafePointer(base), count: raw.count + 2)
                defer { base.deinitialize(count: raw.count + 2) }
                return InlineBytes(filled)
            }
            return
        }
        var json: [UInt8] = []
        json.reserveCapacity(raw.count + 2)
        JSONStrings.appendQuotedBytes(raw, to: &json)
        quoted = json.withUnsafeBufferPointer { InlineBytes($0) }
    }

    package init(raw: [UInt8]) {
        self = raw.withUnsafeBufferPointer { IdentityValue(raw: $0) }
    }

    /// Calls `body` with the id as a JSON string, with its quotes.
    @inline(__always)
    func withJSON<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try quoted.withBytes(body)
    }

    /// The id as a JSON string.
    package var json: [UInt8] { quoted.array }

    /// Calls `body` with the id's bytes: the inside of the quotes, decoded when it has escapes.
    package func withRaw<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withJSON { json in
            let inner = UnsafeBufferPointer(rebasing: json[1..<(json.count - 1)])
            guard inner.contains(UInt8(ascii: "\\")) else { return try body(inner) }
            var decoded = JSONStrings.decode(json, 1..<(json.count - 1), hasEscapes: true)
            return try decoded.withUTF8(body)
        }
    }
}

/// One identity table in memory: every mapping learned (committed or not) and a bounded cache of
/// committed rows, in ONE open-addressing table keyed by the id's bytes, so a lookup costs one
/// fast hash and two cache lines (a slot, then its entry): no String, no `Hasher`, no
/// allocation, and for short keys (``InlineBytes``) no key storage of their own.
///
/// Each entry holds the newest value of its key; `uncommitted` is the sequence of the line that
/// taught it while that value is not yet in SQLite. An entry without a value records that SQLite
/// has no row for the key. Ids are compared as bytes, as SQLite's `TEXT PRIMARY KEY` compares
/// them. Not thread-safe: owned by ``IdentityStore``.
package struct IdentityMap {
    /// An empty one.
    package init() {}

    /// What a lookup found.
    package enum Lookup {
        case value(IdentityValue)
        /// Definitely no mapping.
        case absent
        /// Not in memory: ask SQLite.
        case unknown
    }

    /// One key and its newest value: 56 bytes.
    package struct Entry {
        /// The key's bytes.
        var key: InlineBytes
        /// The newest value; nil records that SQLite has (or, once committed, will have) no row
        /// for the key.
        var value: IdentityValue?
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
    /// Entries whose value is not in SQLite yet.
    package private(set) var uncommittedCount = 0
    /// The number of entries (keys held, committed or not).
    var count: Int { entries.count }
    /// At most this many committed entries are kept; beyond that, every committed entry is dropped.
    package var limit = 262_144
    /// While true, the map holds EVERY committed row of its table (the table was empty when
    /// opened or forgotten, each row since came through a commit, and nothing was evicted), so a
    /// miss is a definite "absent" and SQLite is not asked. Cleared for good by an eviction.
    var isComplete = false

    /// The newest value for `key`.
    package func lookup(_ key: UnsafeBufferPointer<UInt8>) -> Lookup {
        if let i = find(key, Self.hash(key)) {
            return entries[i].value.map { .value($0) } ?? .absent
        }
        return isComplete ? .absent : .unknown
    }

    /// Records a mapping learned from line `sequence`, effective for lookups at once. Returns
    /// where its entry is, as a hint for ``markCommitted(_:sequence:entryHint:)``; nil when the
    /// map already holds `value` for `key`, committed or learned from an earlier line, so there
    /// is nothing new to write (apps identify the same user on every launch).
    @discardableResult
    package mutating func learn(_ key: UnsafeBufferPointer<UInt8>, _ value: IdentityValue, sequence: UInt64) -> UInt32? {
        let i = upsert(key)
        // An entry upsert just made has no value, so this never skips an unknown key.
        if entries[i].value == value { return nil }
        if entries[i].uncommitted == nil { uncommittedCount += 1 }
        entries[i].value = value
        entries[i].uncommitted = sequence
        return UInt32(truncatingIfNeeded: i)
    }

    /// Records that line `sequence` ended `key`'s mapping (a logout): lookups find none at
    /// once, and the commit deletes the row. Returns where its entry is, as ``learn(_:_:sequence:)`` does.
    @discardableResult
    mutating func forget(_ key: UnsafeBufferPointer<UInt8>, sequence: UInt64) -> UInt32 {
        let i = upsert(key)
        if entries[i].uncommitted == nil { uncommittedCount += 1 }
        entries[i].value = nil
        entries[i].uncommitted = sequence
        return UInt32(truncatingIfNeeded: i)
    }

    /// Records what SQLite holds for `key` (nil: no row). Only called after a lookup missed, so
    /// no newer value is in memory.
    mutating func remember(_ key: UnsafeBufferPointer<UInt8>, committedValue value: IdentityValue?) {
        let i = upsert(key)
        entries[i].value = value
    }

    /// The mapping learned from line `sequence` for `key` is now in SQLite, unless a later line
    /// replaced it (that one stays uncommitted).
    ///
    /// `entryHint` is where ``learn(_:_:sequence:)`` put the entry. It is still there unless an
    /// eviction compacted the entries since; the hint is used only when that entry has `key`
    /// (keys are unique), else the key is looked up. Either way the result is the same.
    package mutating func markCommitted(_ key: UnsafeBufferPointer<UInt8>, sequence: UInt64, entryHint: Int) {
        let i: Int
        if entryHint < entries.count, entries[entryHint].key.matches(InlineBytes.probe(key), key) {
            i = entryHint
        } else if let found = find(key, Self.hash(key)) {
            i = found
        } else {
            return
        }
        guard entries[i].uncommitted == sequence else { return }
        entries[i].uncommitted = nil
        uncommittedCount -= 1
    }

    /// A lookup of `key` made ahead, in two steps, so that the cache misses of the real one
    /// (``lookup(_:)``, ``learn(_:_:sequence:)``) overlap other work of the line: this step
    /// prefetches the slot where `key`'s probe starts, and returns the hash for
    /// ``prefetchEntry(hash:)``. A hint only: no result changes.
    ///
    /// The three prefetch methods change nothing but are `mutating`: the store calls them on the
    /// map it keeps in a stored property, and a non-mutating call there copies the map first (a
    /// retain and release of both of its arrays, per line).
    mutating func prefetchSlot(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let h = Self.hash(key)
        slots.withUnsafeBufferPointer { slots in
            // A prefetch reads nothing visible and cannot fault; the index is masked into the
            // buffer all the same, and the pointer does not leave this closure.
            mr_prefetch_read(slots.baseAddress! + (Int(truncatingIfNeeded: h) & (slots.count - 1)))
        }
        return h
    }

    /// The second step of a lookup made ahead: reads the slot ``prefetchSlot(_:)`` prefetched
    /// and, when its tag is the key's, prefetches the entry it points to.
    mutating func prefetchEntry(hash h: UInt64) {
        let slot = slots[Int(truncatingIfNeeded: h) & (slots.count - 1)]
        guard slot != 0, slot & 0xFFFF_FFFF_0000_0000 == h & 0xFFFF_FFFF_0000_0000 else { return }
        prefetchEntry(Int(slot & 0xFFFF_FFFF) - 1)
    }

    /// Prefetches entry `index`, if there is one (a hint only).
    mutating func prefetchEntry(_ index: Int) {
        if index < entries.count { entries.prefetch(index) }
    }

    /// The entries whose value is not in SQLite yet, in the order they were made: what a store
    /// that keeps no log of its learned mappings (a scratch store) commits.
    func uncommittedIndices() -> [Int] {
        var indices: [Int] = []
        indices.reserveCapacity(uncommittedCount)
        for i in entries.indices where entries[i].uncommitted != nil { indices.append(i) }
        return indices
    }

    /// The newest value of entry `index` (nil: no row for its key).
    func value(at index: Int) -> IdentityValue? { entries[index].value }

    /// The values of the entries `indices`, from ``uncommittedIndices()`` with nothing changed
    /// since, are in SQLite now.
    mutating func markCommitted(indices: [Int]) {
        for i in indices where entries[i].uncommitted != nil {
            entries[i].uncommitted = nil
            uncommittedCount -= 1
        }
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
        let raw = UnsafeRawBufferPointer(bytes)
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            // loadUnaligned: ids have no alignment; i + 8 <= n keeps the read inside `bytes`.
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        h = (h ^ ByteWords.tail(bytes, from: i)) &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 29)
    }

    private func find(_ key: UnsafeBufferPointer<UInt8>, _ h: UInt64) -> Int? {
        let probe = InlineBytes.probe(key)
        let tag = h & 0xFFFF_FFFF_0000_0000
        return slots.withUnsafeBufferPointer { slots -> Int? in
            let mask = slots.count - 1
            var s = Int(truncatingIfNeeded: h) & mask
            while true {
                let slot = slots[s]
                if slot == 0 { return nil }
                if slot & 0xFFFF_FFFF_0000_0000 == tag {
                    let e = Int(slot & 0xFFFF_FFFF) - 1
                    if entries[e].key.matches(probe, key) { return e }
                }
                s = (s + 1) & mask
            }
        }
    }

    /// The entry for `key`, inserted (without a value) when missing.
    private mutating func upsert(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        let h = Self.hash(key)
        if let i = find(key, h) { return i }
        makeRoom()
        if (entries.count + 1) * 2 > slots.count { rehash(capacity: slots.count * 2) }
        entries.append(Entry(key: InlineBytes(key), value: nil, uncommittedSequence: Self.committed))
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
        entries[index].key.withBytes { Self.hash($0) }
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

extension IdentityMap: KeyedIdentityRows {
    /// Calls `body` with the key of entry `position`.
    package func withKey<R>(at position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try entries[position].key.withBytes(body)
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
    /// Where each block's storage starts, for ``prefetch(_:)`` alone. A prefetch reads nothing,
    /// so these addresses are never dereferenced, and one that went stale (a block copied on
    /// write after this array was copied) only makes a prefetch useless. Reading the address out
    /// of `blocks` would retain and release the block per call.
    private var bases: [UnsafeRawPointer] = []
    /// The number of elements.
    private(set) var count = 0

    /// The element at `index` (0 ..< count).
    subscript(index: Int) -> Element {
        _read { yield blocks[index >> Self.shift][index & Self.mask] }
        _modify { yield &blocks[index >> Self.shift][index & Self.mask] }
    }

    var indices: Range<Int> { 0..<count }

    /// Prefetches the element at `index` (0 ..< count) into the CPU's caches (a hint only).
    func prefetch(_ index: Int) {
        // A hint only: the address is inside the block (`index & mask` < its count), and a
        // prefetch of any address cannot fault or change what the program reads.
        mr_prefetch_read(bases[index >> Self.shift] + MemoryLayout<Element>.stride * (index & Self.mask))
    }

    mutating func append(_ element: Element) {
        let starts = count & Self.mask == 0
        if starts {
            var block: [Element] = []
            block.reserveCapacity(Self.mask + 1)
            blocks.append(block)
        }
        blocks[blocks.count - 1].append(element)
        // The block reserved room for all its elements, so appending never moves its storage;
        // the address is kept for prefetching only (see `bases`).
        if starts { bases.append(blocks[blocks.count - 1].withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress!) }) }
        count += 1
    }

    mutating func removeAll() {
        blocks = []
        bases = []
        count = 0
    }

    /// Drops the whole blocks before `index` (the elements before it are no longer needed) and
    /// returns how many elements that removed; every index moves down by as many.
    mutating func removeFirstBlocks(upTo index: Int) -> Int {
        let n = min(index, count) >> Self.shift
        guard n > 0 else { return 0 }
        blocks.removeFirst(n)
        bases.removeFirst(n)
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
