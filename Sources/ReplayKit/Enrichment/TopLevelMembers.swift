import JSONCore

/// The top-level members the enricher reads, found in ONE pass over a layout.
///
/// Each field is the index (in `layout.members`) of the LAST member with that key, which is
/// what ``ObjectLayout/member(_:in:)`` returns, so lookups agree with the general API. Keys are
/// compared as raw bytes (by length first); a key written with escapes is decoded first.
struct TopLevelMembers {
    /// The keys the rules read: the positions of ``indices``.
    enum Key: Int {
        case type, event, groupId, context, timestamp, sentAt, writeKey, anonymousId, userId, messageId, properties, traits,
            previousId, originalTimestamp
    }

    /// Each key's member index, or -1, at the key's position: 64 bytes, so the value that every
    /// rule is handed is made, kept and copied in a few vector moves.
    private var indices = SIMD16<Int32>(repeating: -1)
    /// Whether some key appears more than once (then editors must drop the duplicates).
    private(set) var hasDuplicates = false
    /// Whether the object is written without whitespace between its members and braces: each
    /// member starts right after the `{` or the `,` that ends the member before it, and the last
    /// one ends right before the `}`. Then a run of kept members is a plain range of the line.
    private(set) var isCompact = true

    /// The index of the last member with `key`, if any.
    @inline(__always)
    func index(_ key: Key) -> Int? {
        let i = indices[key.rawValue]
        return i < 0 ? nil : Int(i)
    }

    var type: Int? { index(.type) }
    var event: Int? { index(.event) }
    var groupId: Int? { index(.groupId) }
    var context: Int? { index(.context) }
    var timestamp: Int? { index(.timestamp) }
    var sentAt: Int? { index(.sentAt) }
    var writeKey: Int? { index(.writeKey) }
    var anonymousId: Int? { index(.anonymousId) }
    var userId: Int? { index(.userId) }
    var messageId: Int? { index(.messageId) }
    var properties: Int? { index(.properties) }
    var traits: Int? { index(.traits) }
    var previousId: Int? { index(.previousId) }
    var originalTimestamp: Int? { index(.originalTimestamp) }

    /// The index of the last member with `member`'s key, if any.
    @inline(__always)
    subscript(member: TopLevelEdits.Member) -> Int? {
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
    init(_ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) {
        // Where the next member starts when the object is compact (the byte between two
        // members' spans is then their `,`).
        var next = layout.range.lowerBound + 1
        for idx in layout.members.indices {
            let m = layout.members[idx]
            if m.span.lowerBound != next { isCompact = false }
            next = m.span.upperBound + 1
            if m.keyHasEscapes {
                var decoded = JSONStrings.decode(buf, m.key, hasEscapes: true)
                decoded.withUTF8 { record(idx, $0, 0..<$0.count) }
            } else {
                record(idx, buf, m.key)
            }
        }
        if !layout.members.isEmpty, next != layout.range.upperBound { isCompact = false }
    }

    @inline(__always)
    private mutating func record(_ idx: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ key: Range<Int>) {
        @inline(__always) func set(_ key: Key) {
            if indices[key.rawValue] >= 0 { hasDuplicates = true }
            // A line's members fit in Int32: `max_event_bytes` keeps lines far below 2 GB.
            indices[key.rawValue] = Int32(idx)
        }
        @inline(__always) func eq(_ word: StaticString) -> Bool {
            // Called only where key.count == word's length (4 to 17 bytes), so every load below
            // reads inside the key's bytes (which `bytes` holds) and inside the literal, whose
            // utf8Start points at its code units for the program's lifetime. Two overlapping
            // words cover up to 16 bytes; a middle one covers 17.
            let n = word.utf8CodeUnitCount
            let k = UnsafeRawPointer(bytes.baseAddress! + key.lowerBound)
            let w = UnsafeRawPointer(word.utf8Start)
            guard n >= 8 else {
                return k.loadUnaligned(as: UInt32.self) == w.loadUnaligned(as: UInt32.self)
                    && k.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self) == w.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            }
            return k.loadUnaligned(as: UInt64.self) == w.loadUnaligned(as: UInt64.self)
                && k.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == w.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
                && (n <= 16 || k.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == w.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        }
        switch key.count {
        case 4: if eq("type") { set(.type) }
        case 5: if eq("event") { set(.event) }
        case 6:
            if eq("userId") { set(.userId) } else if eq("traits") { set(.traits) } else if eq("sentAt") { set(.sentAt) }
        case 7: if eq("context") { set(.context) } else if eq("groupId") { set(.groupId) }
        case 8: if eq("writeKey") { set(.writeKey) }
        case 9: if eq("timestamp") { set(.timestamp) } else if eq("messageId") { set(.messageId) }
        case 10: if eq("properties") { set(.properties) } else if eq("previousId") { set(.previousId) }
        case 11: if eq("anonymousId") { set(.anonymousId) }
        case 17: if eq("originalTimestamp") { set(.originalTimestamp) }
        default: break
        }
    }
}
