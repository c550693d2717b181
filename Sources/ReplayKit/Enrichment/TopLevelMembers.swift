import JSONCore

/// The top-level members the enricher reads, found in ONE pass over a layout.
///
/// Each field is the index (in `layout.members`) of the LAST member with that key, which is
/// what ``ObjectLayout/member(_:in:)`` returns, so lookups agree with the general API. Keys are
/// compared as raw bytes, each with its one candidate in ``KnownKeys``; a key written with
/// escapes is decoded first.
package struct TopLevelMembers {
    /// The keys the rules read: the positions of ``indices``.
    package enum Key: Int {
        case type, event, groupId, context, timestamp, sentAt, writeKey, anonymousId, userId, messageId, properties, traits,
            previousId, originalTimestamp
    }

    /// Each key's member index, or -1, at the key's position: 64 bytes, so the value that every
    /// rule is handed is made, kept and copied in a few vector moves.
    private var indices = SIMD16<Int32>(repeating: -1)
    /// Whether some key appears more than once (then editors must drop the duplicates).
    package private(set) var hasDuplicates = false
    /// Whether the object is written without whitespace between its members and braces: each
    /// member starts right after the `{` or the `,` that ends the member before it, and the last
    /// one ends right before the `}`. Then a run of kept members is a plain range of the line.
    package private(set) var isCompact = true

    /// The index of the last member with `key`, if any.
    @inline(__always)
    package func index(_ key: Key) -> Int? {
        let i = indices[key.rawValue]
        return i < 0 ? nil : Int(i)
    }

    package var type: Int? { index(.type) }
    var event: Int? { index(.event) }
    var groupId: Int? { index(.groupId) }
    package var context: Int? { index(.context) }
    package var timestamp: Int? { index(.timestamp) }
    package var sentAt: Int? { index(.sentAt) }
    var writeKey: Int? { index(.writeKey) }
    package var anonymousId: Int? { index(.anonymousId) }
    package var userId: Int? { index(.userId) }
    package var messageId: Int? { index(.messageId) }
    var properties: Int? { index(.properties) }
    package var traits: Int? { index(.traits) }
    var previousId: Int? { index(.previousId) }
    var originalTimestamp: Int? { index(.originalTimestamp) }

    /// The index of the last member with `member`'s key, if any.
    @inline(__always)
    package subscript(member: TopLevelEdits.Member) -> Int? {
        switch member {
        case .timestamp: timestamp
        case .anonymousId: anonymousId
        case .userId: userId
        case .groupId: groupId
        case .messageId: messageId
        case .properties: properties
        case .traits: traits
        case .context: context
        }
    }

    /// Finds the members in `layout`, whose line is `buf`.
    package init(_ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) {
        // The indices are gathered in memory and loaded as one vector at the end: storing into a
        // vector at a position known only at run time spills it, and reloading it right after
        // the store stalls (a store cannot be forwarded to a wider load).
        var found = Found()
        let table = KnownKeys.table
        // Where the next member starts when the object is compact (the byte between two
        // members' spans is then their `,`).
        var next = layout.range.lowerBound + 1
        for idx in layout.members.indices {
            let m = layout.members[idx]
            if m.span.lowerBound != next { found.isCompact = false }
            next = m.span.upperBound + 1
            if m.keyHasEscapes {
                var decoded = JSONStrings.decode(buf, m.key, hasEscapes: true)
                decoded.withUTF8 { found.record(idx, $0, 0..<$0.count, table) }
            } else {
                found.record(idx, buf, m.key, table)
            }
        }
        if !layout.members.isEmpty, next != layout.range.upperBound { found.isCompact = false }
        indices = withUnsafeBytes(of: found.indices) { $0.loadUnaligned(as: SIMD16<Int32>.self) }
        hasDuplicates = found.hasDuplicates
        isCompact = found.isCompact
    }

    /// What ``init(_:_:)`` gathers, its indices as sixteen plain integers.
    private struct Found {
        var indices: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) =
            (-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)
        /// A bit per key found (its raw value's), kept in a register: duplicates are told without
        /// reading back the indices just stored.
        private var seen: UInt32 = 0
        /// A bit per key found more than once.
        private var duplicates: UInt32 = 0
        /// See ``TopLevelMembers/isCompact``.
        var isCompact = true

        /// Whether some key was found more than once.
        var hasDuplicates: Bool { duplicates != 0 }

        /// Records member `idx`, whose key is `bytes[key]`, when the key is one of ``Key``'s.
        @inline(__always)
        mutating func record(_ idx: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ key: Range<Int>, _ table: UnsafeBufferPointer<KnownKeys.Bucket>) {
            guard let k = KnownKeys.find(bytes, key, table) else { return }
            let bit: UInt32 = 1 << UInt32(truncatingIfNeeded: k)
            duplicates |= seen & bit
            seen |= bit
            withUnsafeMutableBytes(of: &indices) { slots in
                // k is a Key's raw value, below 16: the store is inside the sixteen integers. A
                // line's members fit in Int32: `max_event_bytes` keeps lines far below 2 GB.
                slots.storeBytes(of: Int32(truncatingIfNeeded: idx), toByteOffset: 4 * k, as: Int32.self)
            }
        }
    }
}

/// The keys of ``TopLevelMembers/Key`` as a perfect hash table: a key's first four bytes pick
/// its one bucket, and the bucket's words say whether the key is that one. A member's key is
/// found with one multiply and two or three compares, and no switch on its length, whose
/// indirect jump the CPU would mispredict as members of different lengths follow each other.
package enum KnownKeys {
    /// One bucket: a key's length and its bytes as words, as ``find(_:_:_:)`` reads them;
    /// `count` 0 for an empty bucket.
    package struct Bucket {
        var key = 0
        var count = 0
        var first: UInt64 = 0
        var last: UInt64 = 0
        var middle: UInt64 = 0
    }

    /// Each key and its name.
    package static let names: [(TopLevelMembers.Key, String)] = [
        (.type, "type"), (.event, "event"), (.groupId, "groupId"), (.context, "context"), (.timestamp, "timestamp"),
        (.sentAt, "sentAt"), (.writeKey, "writeKey"), (.anonymousId, "anonymousId"), (.userId, "userId"),
        (.messageId, "messageId"), (.properties, "properties"), (.traits, "traits"), (.previousId, "previousId"),
        (.originalTimestamp, "originalTimestamp"),
    ]
    /// The lengths of the shortest and the longest name: no other key needs a look.
    static let shortest = 4
    static let longest = 17

    /// The bucket of a key whose first four bytes, read little-endian, are `head`: a multiply
    /// that spreads the fourteen keys over sixteen buckets, one each (checked by the table).
    @inline(__always)
    static func bucket(_ head: UInt32) -> Int { Int((head &* 0x5582_4CB9) >> 28) }

    /// The raw value of the ``TopLevelMembers/Key`` whose name is `bytes[key]`, if any.
    @inline(__always)
    package static func find(_ bytes: UnsafeBufferPointer<UInt8>, _ key: Range<Int>, _ table: UnsafeBufferPointer<Bucket>) -> Int? {
        let n = key.count
        guard n >= shortest, n <= longest else { return nil }
        // `key` lies inside `bytes` and holds n >= 4 bytes: every load below reads inside it
        // (a 4-byte word at 0 and n - 4; for n >= 8, 8-byte words at 0 and n - 8, and for
        // n > 16 at 8). Unaligned loads of UInt8 memory, read as little-endian words.
        let k = UnsafeRawPointer(bytes.baseAddress! + key.lowerBound)
        let head = UInt32(littleEndian: k.loadUnaligned(as: UInt32.self))
        // `bucket` is below 16, the table's size.
        let known = table[bucket(head)]
        guard known.count == n else { return nil }
        @inline(__always) func word(_ at: Int) -> UInt64 { UInt64(littleEndian: k.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        let same =
            n < 8
            ? UInt64(head) == known.first
                && UInt64(UInt32(littleEndian: k.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))) == known.last
            : word(0) == known.first && word(n - 8) == known.last && (n <= 16 || word(8) == known.middle)
        return same ? known.key : nil
    }

    /// The sixteen buckets, in memory allocated once, never written after it is filled and never
    /// freed: reading it retains nothing (an array's storage would be retained and released).
    package nonisolated(unsafe) static let table: UnsafeBufferPointer<Bucket> = {
        let buckets = UnsafeMutableBufferPointer<Bucket>.allocate(capacity: 16)
        _ = buckets.initialize(from: filled())
        return UnsafeBufferPointer(buckets)
    }()

    /// The buckets, each key in its own (checked).
    private static func filled() -> [Bucket] {
        var table = [Bucket](repeating: Bucket(), count: 16)
        for (key, name) in names {
            let bytes = Array(name.utf8)
            precondition(bytes.count >= shortest && bytes.count <= longest, "\(name): no words for its length")
            func word(_ at: Int, _ width: Int) -> UInt64 {
                bytes[at..<(at + width)].enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * $1.offset) }
            }
            let n = bytes.count
            let b = bucket(UInt32(truncatingIfNeeded: word(0, 4)))
            precondition(table[b].count == 0, "\(name) shares bucket \(b)")
            table[b] =
                n < 8
                ? Bucket(key: key.rawValue, count: n, first: word(0, 4), last: word(n - 4, 4))
                : Bucket(key: key.rawValue, count: n, first: word(0, 8), last: word(n - 8, 8), middle: n > 16 ? word(8, 8) : 0)
        }
        return table
    }
}
