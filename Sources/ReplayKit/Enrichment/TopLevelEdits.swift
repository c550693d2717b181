import JSONCore
@_spi(PerLine) import MetaRouterDelivery

/// A new value for a top-level member: bytes already encoded, or a value written straight into
/// the output when the event is rendered (so the hot path makes no array for it).
package enum MemberValue {
    /// Encoded JSON.
    case bytes([UInt8])
    /// A string with no byte that needs an escape, written between quotes: a derived
    /// anonymousId, in memory valid while the line is prepared (see ``IdRef/external(_:)``).
    case quoted(UnsafeBufferPointer<UInt8>)
    /// A carried userId or groupId (a JSON string, inline when short).
    case identity(IdentityValue)
    /// A generated messageId.
    case messageId(MessageID.Parts)
    /// The event's own context with mr-replay's `"library":{...}` member (``LibraryMember``)
    /// appended, the context written without whitespace between its braces and members: `{`,
    /// the text between its braces (`buf[body]`), a `,` when that is not empty, the library
    /// member, `}`. Nothing in it is reference counted, so setting and dropping the edit costs
    /// no retain or release.
    case contextWithLibrary(body: Range<Int>)
    /// The same for a context with whitespace around its members: its members' spans (from its
    /// layout in the line), each followed by a `,`.
    case spacedContextWithLibrary(ObjectLayout)

    /// The edit that appends the library member to the context whose layout is `context`.
    package static func appendingLibrary(to context: ObjectLayout) -> MemberValue {
        // Compact: the first member starts right after `{`, each next one right after the `,`
        // that ends the one before, and the last one ends right before `}` (or `{}` is empty).
        var next = context.range.lowerBound + 1
        for m in context.members {
            guard m.span.lowerBound == next else { return .spacedContextWithLibrary(context) }
            next = m.span.upperBound + 1
        }
        let body = (context.range.lowerBound + 1)..<(context.range.upperBound - 1)
        let compact = context.members.isEmpty ? body.isEmpty : next == context.range.upperBound
        return compact ? .contextWithLibrary(body: body) : .spacedContextWithLibrary(context)
    }

    /// The most bytes ``write(_:to:)`` writes for the value.
    var maximumCount: Int {
        switch self {
        case .bytes(let b): return b.count
        case .quoted(let b): return b.count + 2
        case .identity(let v): return v.withJSON { $0.count }
        case .messageId: return MessageID.maximumQuotedLength
        // `{`, the members with a `,` after each (they fit in the context's text, braces
        // included), the library member and `}`.
        case .contextWithLibrary(let body): return body.count + LibraryMember.bytes.count + 3
        case .spacedContextWithLibrary(let ctx): return ctx.range.count + LibraryMember.bytes.count + 2
        }
    }

    /// Writes the value's JSON (`buf` is the line the event comes from).
    @inline(__always)
    func write(_ buf: UnsafeBufferPointer<UInt8>, to out: inout ByteCursor) {
        switch self {
        case .bytes(let b): out.write(b)
        case .quoted(let b):
            out.write(UInt8(ascii: "\""))
            out.write(b)
            out.write(UInt8(ascii: "\""))
        case .identity(let v): v.withJSON { out.write($0) }
        case .messageId(let id): MessageID.writeQuoted(id, to: &out)
        case .contextWithLibrary(let body):
            out.write(UInt8(ascii: "{"))
            if !body.isEmpty {
                out.write(UnsafeBufferPointer(rebasing: buf[body]))
                out.write(UInt8(ascii: ","))
            }
            out.write(LibraryMember.bytes)
            out.write(UInt8(ascii: "}"))
        case .spacedContextWithLibrary(let ctx):
            out.write(UInt8(ascii: "{"))
            for i in ctx.members.indices {
                out.write(UnsafeBufferPointer(rebasing: buf[ctx.members[i].span]))
                out.write(UInt8(ascii: ","))
            }
            out.write(LibraryMember.bytes)
            out.write(UInt8(ascii: "}"))
        }
    }

    /// The value's JSON as an array (for the general editor).
    func bytes(_ buf: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        if case .bytes(let b) = self { return b }
        var out: [UInt8] = []
        out.appendBytes(upTo: maximumCount) { write(buf, to: &$0) }
        return out
    }
}

/// What enrichment changes among an event's top-level members: the new values, and whether
/// `sentAt` and `writeKey` go.
///
/// A member that exists is replaced in place (its key kept as written); a missing one is
/// appended, in the order of ``Member``. Most lines have no duplicate keys and are rendered
/// straight from the scanned line by ``render(_:_:_:into:)``; lines with duplicates go through
/// ``apply(to:_:)`` and the general `ObjectEditor`, which also drops the earlier duplicates.
/// Both give the same bytes for a line without duplicates.
package struct TopLevelEdits {
    /// An empty one.
    package init() {}

    /// A member enrichment may set; the raw value is its JSON key. Cases are in the order
    /// missing members are appended.
    package enum Member: String, CaseIterable {
        case timestamp, anonymousId, userId, groupId, messageId, properties, traits, context

        /// Every member, in order (made once: loops over it allocate nothing).
        static let ordered = allCases

        /// How many members there are.
        package static let count = 8

        /// The member at `position` of ``ordered``, without touching the array: the render loops
        /// run once per event.
        @inline(__always)
        package static func at(_ position: Int) -> Member {
            switch position {
            case 0: .timestamp
            case 1: .anonymousId
            case 2: .userId
            case 3: .groupId
            case 4: .messageId
            case 5: .properties
            case 6: .traits
            default: .context
            }
        }

        /// The member's position in ``ordered`` (the inverse of ``at(_:)``).
        @inline(__always)
        var position: Int {
            switch self {
            case .timestamp: 0
            case .anonymousId: 1
            case .userId: 2
            case .groupId: 3
            case .messageId: 4
            case .properties: 5
            case .traits: 6
            case .context: 7
            }
        }

        /// The member's key as JSON, with its quotes and colon: a literal, so writing it retains
        /// nothing (an element of a static array of arrays would be retained and released).
        package var encodedKey: StaticString {
            switch self {
            case .timestamp: #""timestamp":"#
            case .anonymousId: #""anonymousId":"#
            case .userId: #""userId":"#
            case .groupId: #""groupId":"#
            case .messageId: #""messageId":"#
            case .properties: #""properties":"#
            case .traits: #""traits":"#
            case .context: #""context":"#
            }
        }
    }

    /// Whether `sentAt` is removed.
    package var removeSentAt = false
    /// Whether `writeKey` is removed.
    package var removeWriteKey = false
    // The new values, one stored property per ``Member`` (so no array is made per line, and
    // a new edit set is initialized in place).
    private var timestamp: MemberValue? = nil
    private var anonymousId: MemberValue? = nil
    private var userId: MemberValue? = nil
    private var groupId: MemberValue? = nil
    private var messageId: MemberValue? = nil
    private var properties: MemberValue? = nil
    private var traits: MemberValue? = nil
    private var context: MemberValue? = nil
    /// Bit k set: ``Member/at(_:)`` k gets a new value. Kept by the subscript's setter, so the
    /// render loops test a bit instead of each value's enum tag.
    private var changed: UInt8 = 0

    /// The new value of `member` (nil: left as it is). Reading copies the value: the hot path
    /// reads through ``withValue(_:_:)`` instead.
    package subscript(member: Member) -> MemberValue? {
        get { withValue(member) { $0 } }
        // Inlined: the rules set members named by literals, so the switch folds to one store.
        @inline(__always) set {
            let bit = UInt8(1) << UInt8(member.position)
            if newValue == nil { changed &= ~bit } else { changed |= bit }
            switch member {
            case .timestamp: timestamp = newValue
            case .anonymousId: anonymousId = newValue
            case .userId: userId = newValue
            case .groupId: groupId = newValue
            case .messageId: messageId = newValue
            case .properties: properties = newValue
            case .traits: traits = newValue
            case .context: context = newValue
            }
        }
    }

    /// Calls `body` with the new value of `member`, borrowed: no copy, no reference counting.
    @inline(__always)
    func withValue<Result>(_ member: Member, _ body: (MemberValue?) -> Result) -> Result {
        switch member {
        case .timestamp: body(timestamp)
        case .anonymousId: body(anonymousId)
        case .userId: body(userId)
        case .groupId: body(groupId)
        case .messageId: body(messageId)
        case .properties: body(properties)
        case .traits: body(traits)
        case .context: body(context)
        }
    }

    /// Calls `body` with the position (in ``Member/ordered``) of each member that gets a new
    /// value, in order.
    @inline(__always)
    private func forEachChanged(_ body: (Int) -> Void) {
        var bits = changed
        while bits != 0 {
            body(bits.trailingZeroBitCount)
            bits &= bits &- 1
        }
    }

    /// The member placed at `index` of the layout, if it is one that gets a new value.
    @inline(__always)
    private func replacedMember(at index: Int, _ top: TopLevelMembers) -> Member? {
        var bits = changed
        while bits != 0 {
            let member = Member.at(bits.trailingZeroBitCount)
            if top[member] == index { return member }
            bits &= bits &- 1
        }
        return nil
    }

    /// Appends the edited object to `out`. Only for lines whose known keys occur once
    /// (`!top.hasDuplicates`); renders exactly what `ObjectEditor` renders for the same edits.
    /// `mutating` only so that the writing closure reaches the edits in place instead of
    /// capturing a copy of them (nothing is changed).
    package mutating func render(_ layout: ObjectLayout, _ top: TopLevelMembers, _ buf: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        // At most: the line's object as written (its members, separators and braces), and for
        // each new value a `,`, its key (the longest, `"anonymousId":`, is 14 bytes) and the value.
        var room = layout.range.count + 2 + Member.count * 16
        forEachChanged { k in room += withValue(Member.at(k)) { $0?.maximumCount ?? 0 } }
        out.appendBytes(upTo: room) { render(layout, top, buf, to: &$0) }
    }

    /// Writes the edited object (see ``render(_:_:_:into:)``). `mutating` for the same reason:
    /// called on the closure's `self`, a non-mutating method gets a copy of the edits.
    @inline(__always)
    private mutating func render(_ layout: ObjectLayout, _ top: TopLevelMembers, _ buf: UnsafeBufferPointer<UInt8>, to out: inout ByteCursor) {
        // Which of the first 64 members get a new value, so the others cost one bit test.
        var replaced: UInt64 = 0
        forEachChanged { k in
            if let idx = top[Member.at(k)], idx < 64 { replaced |= 1 << UInt64(idx) }
        }
        if top.isCompact, layout.members.count <= 64 { return renderCompact(layout, top, buf, replaced: replaced, to: &out) }
        out.write(UInt8(ascii: "{"))
        var first = true
        // Members kept as written are copied in runs: a member that follows the run's last one
        // after exactly one `,` (compact JSON) joins it, so the run's bytes, separators
        // included, are what member-by-member copying writes.
        var run = 0..<0
        for idx in layout.members.indices {
            if removeSentAt, idx == top.sentAt { continue }
            if removeWriteKey, idx == top.writeKey { continue }
            let m = layout.members[idx]
            let mayBeReplaced = idx >= 64 || replaced & (1 << UInt64(idx)) != 0
            if mayBeReplaced, let member = replacedMember(at: idx, top) {
                Self.flush(&run, buf, to: &out)
                if !first { out.write(UInt8(ascii: ",")) }
                first = false
                // The key as written (with its quotes), then the new value.
                out.write(UnsafeBufferPointer(rebasing: buf[(m.key.lowerBound - 1)..<(m.key.upperBound + 1)]))
                out.write(UInt8(ascii: ":"))
                withValue(member) { $0?.write(buf, to: &out) }
            } else if !run.isEmpty, m.span.lowerBound == run.upperBound + 1, buf[run.upperBound] == UInt8(ascii: ",") {
                run = run.lowerBound..<m.span.upperBound
            } else {
                Self.flush(&run, buf, to: &out)
                if !first { out.write(UInt8(ascii: ",")) }
                first = false
                run = m.span
            }
        }
        Self.flush(&run, buf, to: &out)
        appendMissing(top, buf, first: first, to: &out)
    }

    /// ``render(_:_:_:to:)`` for a compact object (``TopLevelMembers/isCompact``) of at most 64
    /// members, whose edited members are the bits of `replaced`: the same bytes, made by visiting
    /// only the members that are replaced or removed, in line order, and copying the kept
    /// members between them as one range each (without the `,` that ends the range).
    @inline(__always)
    private mutating func renderCompact(
        _ layout: ObjectLayout, _ top: TopLevelMembers, _ buf: UnsafeBufferPointer<UInt8>, replaced: UInt64, to out: inout ByteCursor
    ) {
        var edited = replaced
        if removeSentAt, let idx = top.sentAt { edited |= 1 << UInt64(idx) }
        if removeWriteKey, let idx = top.writeKey { edited |= 1 << UInt64(idx) }
        out.write(UInt8(ascii: "{"))
        var first = true
        // The first byte of the members not yet written (a member's start, or the `}`).
        var cursor = layout.range.lowerBound + 1
        @inline(__always) func keep(upTo stop: Int) {
            guard cursor < stop else { return }
            if !first { out.write(UInt8(ascii: ",")) }
            first = false
            out.write(UnsafeBufferPointer(rebasing: buf[cursor..<stop]))
        }
        while edited != 0 {
            let idx = edited.trailingZeroBitCount
            edited &= edited &- 1
            let m = layout.members[idx]
            keep(upTo: m.span.lowerBound - 1)
            // sentAt and writeKey are no `Member`: removed ones are skipped.
            if let member = replacedMember(at: idx, top) {
                if !first { out.write(UInt8(ascii: ",")) }
                first = false
                out.write(UnsafeBufferPointer(rebasing: buf[(m.key.lowerBound - 1)..<(m.key.upperBound + 1)]))
                out.write(UInt8(ascii: ":"))
                withValue(member) { $0?.write(buf, to: &out) }
            }
            cursor = m.span.upperBound + 1
        }
        keep(upTo: layout.range.upperBound - 1)
        appendMissing(top, buf, first: first, to: &out)
    }

    /// Appends the members that get a value and are not in the line, in the order of `Member`
    /// (the order `apply` sets them in), then the closing `}`; `first` tells whether nothing was
    /// written after the `{` yet.
    @inline(__always)
    private func appendMissing(_ top: TopLevelMembers, _ buf: UnsafeBufferPointer<UInt8>, first: Bool, to out: inout ByteCursor) {
        var first = first
        forEachChanged { k in
            let member = Member.at(k)
            guard top[member] == nil else { return }
            if !first { out.write(UInt8(ascii: ",")) }
            first = false
            let key = member.encodedKey
            // A literal's code units stay valid for the program's lifetime.
            out.write(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
            withValue(member) { $0?.write(buf, to: &out) }
        }
        out.write(UInt8(ascii: "}"))
    }

    /// Writes the run of members kept as written, if any, and empties it.
    @inline(__always)
    private static func flush(_ run: inout Range<Int>, _ buf: UnsafeBufferPointer<UInt8>, to out: inout ByteCursor) {
        guard !run.isEmpty else { return }
        out.write(UnsafeBufferPointer(rebasing: buf[run]))
        run = 0..<0
    }

    /// Applies the edits to `editor` (any line, duplicates included).
    package func apply(to editor: inout ObjectEditor, _ buf: UnsafeBufferPointer<UInt8>) {
        // The rare path (lines with duplicate keys): the values as arrays. `timestamp` is set
        // before the removals, as `render` keeps its place.
        if let timestamp = self[.timestamp] { editor.set(Member.timestamp.rawValue, raw: timestamp.bytes(buf), in: buf) }
        if removeSentAt { editor.remove("sentAt", in: buf) }
        if removeWriteKey { editor.remove("writeKey", in: buf) }
        for member in Member.ordered where member != .timestamp {
            if let value = self[member] { editor.set(member.rawValue, raw: value.bytes(buf), in: buf) }
        }
    }
}
