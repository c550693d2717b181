import JSONCore

/// What enrichment changes among an event's top-level members: the encoded new values, and
/// whether `sentAt` and `writeKey` go.
///
/// A member that exists is replaced in place (its key kept as written); a missing one is
/// appended, in the order of the stored properties below. A generated messageId and a context
/// that only gains `library` are written straight into the output, without an array of their own. Most lines have no duplicate keys and
/// are rendered straight from the scanned line by ``render(_:_:_:into:)``; lines with
/// duplicates go through ``apply(to:_:)`` and the general `ObjectEditor`, which also drops the
/// earlier duplicates. Both give the same bytes for a line without duplicates.
struct TopLevelEdits {
    var timestamp: [UInt8]?
    var removeSentAt = false
    var removeWriteKey = false
    var anonymousId: [UInt8]?
    var userId: [UInt8]?
    var groupId: [UInt8]?
    var messageId: [UInt8]?
    var properties: [UInt8]?
    var traits: [UInt8]?
    var context: [UInt8]?
    /// A carried userId / groupId, written straight into the output (instead of ``userId`` /
    /// ``groupId``, so no array is made for it).
    var carriedUserId: IdentityValue?
    var carriedGroupId: IdentityValue?
    /// A generated messageId, written straight into the output (instead of ``messageId``).
    var generatedMessageId: StableMessageId.Parts?
    /// The event's own context (its layout in the line) with `"library":{...}` appended,
    /// written straight into the output (instead of ``context``); see ``LinePreparer``.
    var contextWithLibrary: (layout: ObjectLayout, library: [UInt8])?

    /// The encoded key of each settable member, with its quotes and colon, built once.
    private static let keys: [[UInt8]] = ["timestamp", "anonymousId", "userId", "groupId", "messageId", "properties", "traits", "context"]
        .map { key in
            var k = JSONStrings.quoted(key)
            k.append(UInt8(ascii: ":"))
            return k
        }

    /// The new value of the member at `index`, if it is replaced by stored bytes.
    @inline(__always)
    private func replacement(at index: Int, _ top: TopLevelMembers) -> [UInt8]? {
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

    /// Whether the member at `index` is replaced by a value rendered in place.
    @inline(__always)
    private func renderedInPlace(at index: Int, _ top: TopLevelMembers) -> Bool {
        (index == top.context && contextWithLibrary != nil) || (index == top.messageId && generatedMessageId != nil)
            || (index == top.userId && carriedUserId != nil) || (index == top.groupId && carriedGroupId != nil)
    }

    /// Writes the in-place value of the member at `index` (see ``renderedInPlace(at:_:)``).
    private func writeInPlace(at index: Int, _ top: TopLevelMembers, _ buf: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        if index == top.context, let c = contextWithLibrary {
            Self.writeContext(c.layout, library: c.library, buf, into: &out)
        } else if index == top.userId, let v = carriedUserId {
            v.withJSON { out.append(contentsOf: $0) }
        } else if index == top.groupId, let v = carriedGroupId {
            v.withJSON { out.append(contentsOf: $0) }
        } else if let id = generatedMessageId {
            StableMessageId.append(id, to: &out)
        }
    }

    /// `{` + the context's members as written + `,` + the library member + `}`.
    static func writeContext(_ ctx: ObjectLayout, library: [UInt8], _ buf: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for i in ctx.members.indices {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[ctx.members[i].span]))
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: library)
        out.append(UInt8(ascii: "}"))
    }

    /// Appends the edited object to `out`. Only for lines whose known keys occur once
    /// (`!top.hasDuplicates`); renders exactly what `ObjectEditor` renders for the same edits.
    func render(_ layout: ObjectLayout, _ top: TopLevelMembers, _ buf: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        // Each new value plus room for its key (the longest, `"anonymousId":`, is 14 bytes).
        var capacity = layout.range.count + 2 + 8 * 16
        capacity += (timestamp?.count ?? 0) + (anonymousId?.count ?? 0)
        capacity += (userId?.count ?? 0) + (groupId?.count ?? 0)
        capacity += (messageId?.count ?? 0) + (properties?.count ?? 0)
        capacity += (traits?.count ?? 0) + (context?.count ?? 0)
        if let c = contextWithLibrary { capacity += c.layout.range.count + c.library.count + 2 }
        if generatedMessageId != nil { capacity += StableMessageId.maximumQuotedLength }
        capacity += (carriedUserId != nil ? 64 : 0) + (carriedGroupId != nil ? 64 : 0)
        out.reserveCapacity(out.count + capacity)
        out.append(UInt8(ascii: "{"))
        var first = true
        for idx in layout.members.indices {
            if removeSentAt, idx == top.sentAt { continue }
            if removeWriteKey, idx == top.writeKey { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            let m = layout.members[idx]
            if renderedInPlace(at: idx, top) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[(m.key.lowerBound - 1)..<(m.key.upperBound + 1)]))
                out.append(UInt8(ascii: ":"))
                writeInPlace(at: idx, top, buf, into: &out)
            } else if let value = replacement(at: idx, top) {
                // The key as written (with its quotes), then the new value.
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[(m.key.lowerBound - 1)..<(m.key.upperBound + 1)]))
                out.append(UInt8(ascii: ":"))
                out.append(contentsOf: value)
            } else {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[m.span]))
            }
        }
        // Missing members are appended in a fixed order (the order `apply` sets them in).
        func append(_ key: Int, _ member: Int?, _ value: [UInt8]?) {
            guard member == nil, let value else { return }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: Self.keys[key])
            out.append(contentsOf: value)
        }
        append(0, top.timestamp, timestamp)
        append(1, top.anonymousId, anonymousId)
        append(2, top.userId, userId)
        if top.userId == nil, let v = carriedUserId {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: Self.keys[2])
            v.withJSON { out.append(contentsOf: $0) }
        }
        append(3, top.groupId, groupId)
        if top.groupId == nil, let v = carriedGroupId {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: Self.keys[3])
            v.withJSON { out.append(contentsOf: $0) }
        }
        append(4, top.messageId, messageId)
        if top.messageId == nil, let id = generatedMessageId {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: Self.keys[4])
            StableMessageId.append(id, to: &out)
        }
        append(5, top.properties, properties)
        append(6, top.traits, traits)
        append(7, top.context, context)
        if top.context == nil, contextWithLibrary != nil {
            // A context without a member is never given as its layout (there is none to copy).
            preconditionFailure("contextWithLibrary needs the line's context member")
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Applies the edits to `editor` (any line, duplicates included).
    func apply(to editor: inout ObjectEditor, _ buf: UnsafeBufferPointer<UInt8>) {
        if let timestamp { editor.set("timestamp", raw: timestamp, in: buf) }
        if removeSentAt { editor.remove("sentAt", in: buf) }
        if removeWriteKey { editor.remove("writeKey", in: buf) }
        if let anonymousId { editor.set("anonymousId", raw: anonymousId, in: buf) }
        if let userId { editor.set("userId", raw: userId, in: buf) }
        if let v = carriedUserId { editor.set("userId", raw: v.json, in: buf) }
        if let groupId { editor.set("groupId", raw: groupId, in: buf) }
        if let v = carriedGroupId { editor.set("groupId", raw: v.json, in: buf) }
        if let messageId { editor.set("messageId", raw: messageId, in: buf) }
        if let id = generatedMessageId {
            var bytes: [UInt8] = []
            StableMessageId.append(id, to: &bytes)
            editor.set("messageId", raw: bytes, in: buf)
        }
        if let properties { editor.set("properties", raw: properties, in: buf) }
        if let traits { editor.set("traits", raw: traits, in: buf) }
        if let context { editor.set("context", raw: context, in: buf) }
        if let c = contextWithLibrary {
            var bytes: [UInt8] = []
            Self.writeContext(c.layout, library: c.library, buf, into: &bytes)
            editor.set("context", raw: bytes, in: buf)
        }
    }
}
