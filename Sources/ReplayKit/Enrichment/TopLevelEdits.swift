import JSONCore

/// A new value for a top-level member: bytes already encoded, or a value written straight into
/// the output when the event is rendered (so the hot path makes no array for it).
enum MemberValue {
    /// Encoded JSON.
    case bytes([UInt8])
    /// A carried userId or groupId (a JSON string, inline when short).
    case identity(IdentityValue)
    /// A generated messageId.
    case messageId(StableMessageId.Parts)
    /// The event's own context (its layout in the line) with the `"library":{...}` member appended.
    case contextWithLibrary(ObjectLayout, library: [UInt8])

    /// Room to reserve for the value.
    var estimatedCount: Int {
        switch self {
        case .bytes(let b): return b.count
        case .identity: return 64
        case .messageId: return StableMessageId.maximumQuotedLength
        case .contextWithLibrary(let ctx, let library): return ctx.range.count + library.count + 2
        }
    }

    /// Appends the value's JSON to `out` (`buf` is the line the event comes from).
    func write(_ buf: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        switch self {
        case .bytes(let b): out.append(contentsOf: b)
        case .identity(let v): v.withJSON { out.append(contentsOf: $0) }
        case .messageId(let id): StableMessageId.append(id, to: &out)
        case .contextWithLibrary(let ctx, let library):
            // `{` + the context's members as written + `,` + the library member + `}`.
            out.append(UInt8(ascii: "{"))
            for i in ctx.members.indices {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[ctx.members[i].span]))
                out.append(UInt8(ascii: ","))
            }
            out.append(contentsOf: library)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The value's JSON as an array (for the general editor).
    func bytes(_ buf: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        if case .bytes(let b) = self { return b }
        var out: [UInt8] = []
        write(buf, into: &out)
        return out
    }
}

/// What enrichment changes among an event's top-level members: the new values, and whether
/// `sentAt` and `writeKey` go.
///
/// A member that exists is replaced in place (its key kept as written); a missing one is
/// appended, in the order of the stored properties below. Most lines have no duplicate keys and
/// are rendered straight from the scanned line by ``render(_:_:_:into:)``; lines with
/// duplicates go through ``apply(to:_:)`` and the general `ObjectEditor`, which also drops the
/// earlier duplicates. Both give the same bytes for a line without duplicates.
struct TopLevelEdits {
    var timestamp: MemberValue?
    var removeSentAt = false
    var removeWriteKey = false
    var anonymousId: MemberValue?
    var userId: MemberValue?
    var groupId: MemberValue?
    var messageId: MemberValue?
    var properties: MemberValue?
    var traits: MemberValue?
    var context: MemberValue?

    /// The settable members' names, in the order missing ones are appended.
    private static let names = ["timestamp", "anonymousId", "userId", "groupId", "messageId", "properties", "traits", "context"]

    /// The encoded key of each settable member, with its quotes and colon, built once.
    private static let keys: [[UInt8]] = names.map { key in
        var k = JSONStrings.quoted(key)
        k.append(UInt8(ascii: ":"))
        return k
    }

    /// The new value of the member at `index`, if it is replaced.
    @inline(__always)
    private func replacement(at index: Int, _ top: TopLevelMembers) -> MemberValue? {
        if index == top.context { return context }
        if index == top.timestamp { return timestamp }
        if index == top.anonymousId { return anonymousId }
        if index == top.userId { return userId }
        if index == top.groupId { return groupId }
        if index == top.messageId { return messageId }
        if index == top.properties { return properties }
        if index == top.traits { return traits }
        return nil
    }

    /// Appends the edited object to `out`. Only for lines whose known keys occur once
    /// (`!top.hasDuplicates`); renders exactly what `ObjectEditor` renders for the same edits.
    func render(_ layout: ObjectLayout, _ top: TopLevelMembers, _ buf: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        // Each new value plus room for its key (the longest, `"anonymousId":`, is 14 bytes).
        var capacity = layout.range.count + 2 + 8 * 16
        func add(_ value: MemberValue?) { capacity += value?.estimatedCount ?? 0 }
        add(timestamp); add(anonymousId); add(userId); add(groupId)
        add(messageId); add(properties); add(traits); add(context)
        out.reserveCapacity(out.count + capacity)
        out.append(UInt8(ascii: "{"))
        var first = true
        for idx in layout.members.indices {
            if removeSentAt, idx == top.sentAt { continue }
            if removeWriteKey, idx == top.writeKey { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            let m = layout.members[idx]
            if let value = replacement(at: idx, top) {
                // The key as written (with its quotes), then the new value.
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[(m.key.lowerBound - 1)..<(m.key.upperBound + 1)]))
                out.append(UInt8(ascii: ":"))
                value.write(buf, into: &out)
            } else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[m.span]))
            }
        }
        // Missing members are appended in a fixed order (the order `apply` sets them in).
        func append(_ key: Int, _ member: Int?, _ value: MemberValue?) {
            guard member == nil, let value else { return }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: Self.keys[key])
            value.write(buf, into: &out)
        }
        append(0, top.timestamp, timestamp)
        append(1, top.anonymousId, anonymousId)
        append(2, top.userId, userId)
        append(3, top.groupId, groupId)
        append(4, top.messageId, messageId)
        append(5, top.properties, properties)
        append(6, top.traits, traits)
        append(7, top.context, context)
        out.append(UInt8(ascii: "}"))
    }

    /// Applies the edits to `editor` (any line, duplicates included).
    func apply(to editor: inout ObjectEditor, _ buf: UnsafeBufferPointer<UInt8>) {
        if let timestamp { editor.set("timestamp", raw: timestamp.bytes(buf), in: buf) }
        if removeSentAt { editor.remove("sentAt", in: buf) }
        if removeWriteKey { editor.remove("writeKey", in: buf) }
        // The rare path (lines with duplicate keys): the values as arrays, in the order of `names`.
        let values = [anonymousId, userId, groupId, messageId, properties, traits, context]
        for (k, value) in values.enumerated() {
            if let value { editor.set(Self.names[k + 1], raw: value.bytes(buf), in: buf) }
        }
    }
}
