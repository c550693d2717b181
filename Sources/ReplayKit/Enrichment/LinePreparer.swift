import Foundation
import JSONCore

/// Turns one line into an enriched event or a rejection: validation, type rules, timestamps,
/// anonymousId, carried userId/groupId, messageId, privacy and context. See `docs/enrichment.md`.
///
/// Each line is validated once with `ObjectLayout.scanDocument`; the rules collect their edits in
/// ``TopLevelEdits``, which splices them into the line, so untouched members reach the output
/// byte for byte. What the line teaches
/// the identity store is left to ``Enricher/finish(_:sequence:)``.
///
/// A struct, so that its per-line state (scratch storage, counts) is accessed without the
/// dynamic exclusivity checks a class property needs. Its scratch storage is reused line to line.
struct LinePreparer {
    let config: ReplayConfig
    let nowMillis: () -> Int64
    let libraryJSON: [UInt8]
    let defaults: ContextDefaultsJSON
    /// The whole `context` of an event that has none (library + config defaults), encoded once.
    let defaultContextJSON: [UInt8]
    /// The `"library":{...}` member of an enriched context, encoded once.
    let libraryMemberJSON: [UInt8]
    /// The device anonymousId's bytes, and as a JSON string, encoded once.
    let deviceAnonymousId: IdRef
    let deviceAnonymousIdJSON: [UInt8]

    // Per-line scratch storage, reused line after line so the hot path does not allocate it
    // again for every event. Each is moved out while a line is prepared and put back after.
    var scratch = LineScratch()
    var scratchContextEditor = ObjectEditor(ObjectLayout())
    /// What the current line's rules did (moved into the prepared event).
    var counts = LineCounts()

    init(config: ReplayConfig, deviceAnonymousId: String, nowMillis: @escaping () -> Int64) {
        self.config = config
        self.nowMillis = nowMillis
        var lib: [UInt8] = Array("{\"name\":\"mr-replay\",\"version\":".utf8)
        lib += JSONStrings.quoted(Enricher.libraryVersion)
        lib.append(UInt8(ascii: "}"))
        libraryJSON = lib
        var libMember: [UInt8] = []
        JSONStrings.appendQuoted("library", to: &libMember)
        libMember.append(UInt8(ascii: ":"))
        libraryMemberJSON = libMember + lib
        defaults = ContextDefaultsJSON(config.enrichment.context)
        defaultContextJSON = defaults.contextWithout(library: lib)
        self.deviceAnonymousId = .bytes(Array(deviceAnonymousId.utf8))
        deviceAnonymousIdJSON = JSONStrings.quoted(deviceAnonymousId)
    }

    private func reject(_ reason: String, _ detail: String) -> PreparedLine { .deadLetter(reason: reason, detail: detail) }

    /// Prepares one line, rendering its event at the end of `out`; lines must come in read order
    /// (carry-forward looks up `identity`). Nothing is appended to `out` for other outcomes.
    mutating func prepare(
        _ buf: UnsafeBufferPointer<UInt8>, lineNumber: Int, identity: IdentityStore, into out: inout [UInt8]
    ) -> PreparedLine {
        var firstNonBlank = 0
        while firstNonBlank < buf.count, isWhitespace(buf[firstNonBlank]) { firstNonBlank += 1 }
        if firstNonBlank == buf.count { return .blank }
        if buf.count > config.batching.maxEventBytes {
            return reject(DeadLetterReason.tooLarge, "line is \(buf.count) bytes; batching.max_event_bytes is \(config.batching.maxEventBytes)")
        }
        counts = LineCounts()
        // The scans reuse the scratch layouts' member storage. The local copies below end with
        // this call, so that storage is uniquely referenced (reused, not copied) on the next line.
        do {
            try ObjectLayout.scanDocument(buf, reusing: &scratch.top)
        } catch {
            switch error.kind {
            case .invalidUTF8: return reject(DeadLetterReason.invalidUTF8, error.description)
            case .unexpectedType: return reject(DeadLetterReason.notAnObject, "the line is valid JSON but not an object")
            case .syntax, .tooDeep:
                if !UTF8Check.isValid(buf) { return reject(DeadLetterReason.invalidUTF8, "the line is not valid UTF-8") }
                return reject(DeadLetterReason.invalidJSON, error.description)
            }
        }

        let layout = scratch.top
        // Every top-level member the rules read, found in one pass.
        let top = TopLevelMembers(layout, buf)
        @inline(__always) func member(_ idx: Int?) -> JSONMember? { idx.map { layout.members[$0] } }

        // Type and type-specific required fields.
        guard let typeMember = member(top.type) else { return reject(DeadLetterReason.missingType, "no \"type\" member") }
        guard typeMember.kind == .string else { return reject(DeadLetterReason.missingType, "\"type\" is not a string") }
        guard let type = EventType(buf, typeMember.value) else {
            let name = JSONLayoutValues.stringContent(buf, typeMember.value)
            return reject(DeadLetterReason.unknownType, "type \"\(name.prefix(40))\" is not track, identify, page, screen, group or alias")
        }
        if type == .track, !isNonEmptyString(member(top.event)) {
            return reject(DeadLetterReason.missingEventName, "a track event needs a non-empty string \"event\"")
        }
        var groupIdOfGroup: IdRef?
        if type == .group {
            guard let g = IdRef(member(top.groupId), buf) else {
                return reject(DeadLetterReason.missingGroupId, "a group event needs a non-empty \"groupId\"")
            }
            groupIdOfGroup = g
        }

        // Context shape and consent.
        var context: ObjectLayout?
        if let c = member(top.context), c.kind != .null {
            guard c.kind == .object, ObjectLayout.scanNested(buf, c.value, reusing: &scratch.context) else {
                return reject(DeadLetterReason.invalidContext, "\"context\" is not an object")
            }
            context = scratch.context
        }
        if let context, let denial = consentDenial(context, buf) {
            return reject(DeadLetterReason.consentDenied, denial)
        }

        // Timestamp.
        var edits = TopLevelEdits()
        let millis: Int64
        let tsMember = member(top.timestamp)
        if tsMember == nil || tsMember?.kind == .null {
            guard config.enrichment.defaultTimestamp == .now else {
                return reject(DeadLetterReason.missingTimestamp, "no \"timestamp\" (set enrichment.default_timestamp: now to use the replay time)")
            }
            millis = nowMillis()
            edits.timestamp = .bytes(JSONStrings.quoted(Timestamps.format(millis: millis)))
            counts.timestampDefaulted = true
        } else {
            let ts = tsMember!
            guard ts.kind == .string,
                let ms = Timestamps.parseMillis(UnsafeBufferPointer(rebasing: buf[(ts.value.lowerBound + 1)..<(ts.value.upperBound - 1)]))
            else {
                return reject(DeadLetterReason.invalidTimestamp, "\"timestamp\" is not an ISO-8601 date-time (YYYY-MM-DDTHH:MM:SS[.fff][zone])")
            }
            millis = ms
        }
        if top.sentAt != nil {
            edits.removeSentAt = true
            counts.sentAtDropped = true
        }
        // The engine stamps the configured write key on every event; a captured one would be a
        // duplicate key and would leak the source's key to the destination.
        if top.writeKey != nil {
            edits.removeWriteKey = true
            counts.writeKeyDropped = true
        }

        // Identity: anonymousId, then carried userId / groupId, looked up by their bytes.
        var anon: IdRef
        if let own = IdRef(member(top.anonymousId), buf) {
            anon = own
        } else {
            anon = deviceAnonymousId
            edits.anonymousId = .bytes(deviceAnonymousIdJSON)
            counts.anonymousIdFilled = true
        }
        let ownUserId = IdRef(member(top.userId), buf)
        let hasGroupId = groupIdOfGroup != nil || isIdentifier(member(top.groupId))
        var carriedUserId: IdentityValue?
        do {
            if ownUserId == nil, let carried = try anon.withBytes(buf, { try identity.userIdValue(forAnonymousId: $0) }) {
                carriedUserId = carried
                edits.userId = .identity(carried)
                counts.userIdCarried = true
            }
            if !hasGroupId {
                let carried: IdentityValue?
                if let ownUserId {
                    carried = try ownUserId.withBytes(buf) { try identity.groupIdValue(forUserId: $0) }
                } else if let carriedUserId {
                    carried = try carriedUserId.withRaw { try identity.groupIdValue(forUserId: $0) }
                } else {
                    carried = nil
                }
                if let carried {
                    edits.groupId = .identity(carried)
                    counts.groupIdCarried = true
                }
            }
        } catch {
            return reject(DeadLetterReason.identityStoreError, "\(error)")
        }

        // messageId: the event's own is kept when it is an identifier.
        if !isIdentifier(member(top.messageId)) {
            edits.messageId = .messageId(StableMessageId.parts(line: buf, lineNumber: lineNumber, millis: millis))
            counts.messageIdGenerated = true
        }

        // Privacy on properties / traits, then context.
        if !config.privacy.dropProperties.isEmpty {
            edits.properties = dropKeys(member(top.properties), buf).map(MemberValue.bytes)
            edits.traits = dropKeys(member(top.traits), buf).map(MemberValue.bytes)
        }
        if let ctx = context, libraryIsTheOnlyContextEdit(ctx, buf) {
            edits.context = .contextWithLibrary(ctx, library: libraryMemberJSON)
        } else {
            switch enrichContext(context, buf) {
            case .success(let ctx): edits.context = .bytes(ctx)
            case .failure(let f): return reject(DeadLetterReason.invalidContext, f.detail)
            }
        }

        let start = out.count
        if top.hasDuplicates {
            var editor = ObjectEditor(layout)
            edits.apply(to: &editor, buf)
            out.reserveCapacity(start + editor.renderedCapacity)
            editor.render(buf, into: &out)
        } else {
            edits.render(layout, top, buf, into: &out)
        }
        return .event(
            PreparedEvent(
                range: start..<out.count, anonymousId: anon, ownUserId: ownUserId, carriedUserId: carriedUserId,
                groupIdOfGroup: groupIdOfGroup, type: type, counts: counts))
    }

    // MARK: - Helpers

    @inline(__always) func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    /// Whether `m` is a non-empty string member.
    func isNonEmptyString(_ m: JSONMember?) -> Bool {
        guard let m else { return false }
        return m.kind == .string && m.value.count > 2
    }

    /// Whether `m` holds an id: a non-empty string or a number (ids are sometimes numeric).
    func isIdentifier(_ m: JSONMember?) -> Bool {
        guard let m else { return false }
        return m.kind == .number || (m.kind == .string && m.value.count > 2)
    }

    /// A non-empty string member.
    func nonEmptyString(_ layout: ObjectLayout, _ key: String, _ buf: UnsafeBufferPointer<UInt8>) -> String? {
        guard let m = layout.member(key, in: buf), m.kind == .string, m.value.count > 2 else { return nil }
        return JSONLayoutValues.stringContent(buf, m.value)
    }

    /// Whether a member is the literal `true` / `false`.
    func literal(_ layout: ObjectLayout, _ key: String, _ buf: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let m = layout.member(key, in: buf), m.kind == .bool else { return nil }
        return buf[m.value.lowerBound] == UInt8(ascii: "t")
    }
}

/// Storage for one line's layouts, reused from line to line.
struct LineScratch {
    var top = ObjectLayout()
    var context = ObjectLayout()
}
