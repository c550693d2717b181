import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration
import Timestamps

/// Turns one line into an enriched event or a rejection: validation, type rules, timestamps,
/// anonymousId, carried userId/groupId, messageId, privacy and context. See `docs/enrichment.md`.
///
/// Each line is validated once with `ObjectLayout.scanDocument`; the rules collect their edits in
/// ``TopLevelEdits``, which splices them into the line, so untouched members reach the output
/// byte for byte. What the line teaches
/// the identity store is left to the ``Enricher``, which reads it from ``event``.
///
/// A struct, so that its per-line state (scratch storage, counts) is accessed without the
/// dynamic exclusivity checks a class property needs. Its scratch storage is reused line to line.
package struct LinePreparer {
    let config: ReplayConfig
    let nowMillis: () -> Int64
    let defaults: ContextDefaultsJSON
    /// The whole `context` of an event that has none (library + config defaults), encoded once.
    let defaultContextJSON: [UInt8]
    /// The device anonymousId's bytes, and as a JSON string, encoded once.
    let deviceAnonymousId: IdRef
    let deviceAnonymousIdJSON: [UInt8]
    /// `privacy.drop_properties`, sorted by the object each entry applies to.
    let drops: DropPaths
    /// `enrichment.identity.logout_events`, as bytes.
    let logoutEvents: LogoutEvents
    /// Where a line's derived anonymousId is written (`user_lines: derived`).
    let derivedIds = DerivedIdBuffer()
    /// Events whose time is before this (epoch ms) are `expired`; set per input by the walk.
    var expiryCutoffMillis: Int64?
    /// The run's time window (``TimeWindow/bounds``): events before `windowSince` or at or after
    /// `windowUntil` (epoch ms) are `outside_window`. Open by default.
    var windowSince = Int64.min
    var windowUntil = Int64.max

    /// Applies the run's time window (none: every time passes).
    package mutating func setWindow(_ window: TimeWindow?) {
        (windowSince, windowUntil) = window?.bounds ?? (.min, .max)
    }

    // Per-line scratch storage, reused line after line so the hot path does not allocate it
    // again for every event. Each is moved out while a line is prepared and put back after.
    var scratch = LineScratch()
    var scratchContextEditor = ObjectEditor(ObjectLayout())
    /// What the current line's rules did.
    var counts = LineCounts()
    /// The last event prepared: valid once ``prepare(_:lineNumber:identity:into:)`` returned
    /// `.event` or ``prepareToLearn(_:identity:)`` returned true, until the next line. The
    /// enricher reads it in place, so the event is not copied on its way out.
    var event = PreparedEvent(type: .track)

    /// Calls `body` with ``event``. `mutating` only so that the event is reached in place, not
    /// copied out of the enricher first (nothing is changed).
    @inline(__always)
    mutating func withEvent<R>(_ body: (PreparedEvent) -> R) -> R { body(event) }

    init(config: ReplayConfig, deviceAnonymousId: String, nowMillis: @escaping () -> Int64) {
        self.config = config
        self.nowMillis = nowMillis
        defaults = ContextDefaultsJSON(config.enrichment.context)
        var removed = 0
        defaultContextJSON = defaults.contextWithout(library: LibraryMember.json, removed: &removed)
        drops = DropPaths(config.privacy.dropProperties)
        logoutEvents = LogoutEvents(config.enrichment.identity.logoutEvents)
        self.deviceAnonymousId = .bytes(Array(deviceAnonymousId.utf8))
        deviceAnonymousIdJSON = JSONStrings.quoted(deviceAnonymousId)
    }

    private func reject(_ reason: String, _ detail: String) -> LineOutcome<Range<Int>> { .deadLetter(reason: reason, detail: detail) }

    /// Prepares one line, rendering its event at the end of `out`; lines must come in read order
    /// (carry-forward looks up `identity`). Nothing is appended to `out` for other outcomes.
    /// Each step below is one rule of `docs/enrichment.md`, applied in this order.
    mutating func prepare(
        _ buf: UnsafeBufferPointer<UInt8>, lineNumber: Int, identity: IdentityStore, into out: inout [UInt8]
    ) -> LineOutcome<Range<Int>> {
        if let stop = lineRules(buf) { return stop }
        let layout = scratch.top
        // Every top-level member the rules read, found in one pass.
        let top = TopLevelMembers(layout, buf)
        let hints = prefetchIdentities(top, layout, buf, identity)
        var line = PreparedEvent(type: .track)
        if let stop = typeRules(top, layout, buf, &line) { return stop }
        var context: ObjectLayout?
        if let stop = contextAndConsentRules(top, layout, buf, &context) { return stop }
        identity.prefetchEntries(hints)
        var edits = TopLevelEdits()
        if let stop = timestampRules(top, layout, buf, &edits, &line) { return stop }
        capturedMemberRules(top, &edits)
        if let stop = identityRules(top, layout, buf, identity, &edits, &line) { return stop }
        messageIdRule(top, layout, buf, lineNumber: lineNumber, millis: line.millis, &edits)
        privacyRules(top, layout, buf, &edits)
        if let stop = contextEnrichmentRule(context, buf, &edits) { return stop }
        event = consume line
        return .event(Self.render(&edits, layout, top, buf, into: &out))
    }

    /// What another shard's line teaches the identity store, when it would become an event:
    /// exactly the rules of ``prepare(_:lineNumber:identity:into:)`` that can reject or settle a
    /// line, and the identity rules, without rendering, a messageId, privacy edits or carried
    /// values (nothing is sent). True, with the event in ``event``, when the line would become an
    /// event; false when it would not (it teaches nothing).
    ///
    /// Without `identity` (the partition stage, which holds no identities), nothing is looked up:
    /// the event holds what the line teaches as written (``IdentityTransition``), and the store
    /// that later learns it resolves a group's carried userId and an alias's moved group.
    mutating func prepareToLearn(_ buf: UnsafeBufferPointer<UInt8>, identity: IdentityStore?) -> Bool {
        if lineRules(buf) != nil { return false }
        let layout = scratch.top
        let top = TopLevelMembers(layout, buf)
        var line = PreparedEvent(type: .track)
        if typeRules(top, layout, buf, &line) != nil { return false }
        var context: ObjectLayout?
        if contextAndConsentRules(top, layout, buf, &context) != nil { return false }
        var edits = TopLevelEdits()
        if timestampRules(top, layout, buf, &edits, &line) != nil { return false }
        if identityRules(top, layout, buf, identity, &edits, &line, learningOnly: true) != nil { return false }
        if let context, Self.contextWouldFail(context, buf) { return false }
        event = consume line
        return true
    }

    /// Whether ``contextEnrichmentRule(_:_:_:)`` would reject `context` (`invalid_context`): its
    /// `app`, `device` or `os` is there and is neither an object nor null. Nothing else in
    /// enriching a context (of a validated line) can fail.
    static func contextWouldFail(_ context: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) -> Bool {
        for name in contextObjects {
            if let m = context.member(name, in: buf), m.kind != .object, m.kind != .null { return true }
        }
        return false
    }

    /// The members of `context` that must be objects (or null).
    private static let contextObjects = ["app", "device", "os"]

    /// Starts the identity lookups' memory reads (``IdentityStore/prefetch(anonymousId:userId:)``)
    /// by the ids as written: for an id with escapes, which is looked up decoded, the hint is
    /// wasted, not wrong.
    @inline(__always)
    private func prefetchIdentities(
        _ top: TopLevelMembers, _ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>, _ identity: IdentityStore
    ) -> IdentityStore.LookupHints {
        @inline(__always) func written(_ m: JSONMember?) -> UnsafeBufferPointer<UInt8>? {
            IdRef.written(m).map { UnsafeBufferPointer(rebasing: buf[$0]) }
        }
        return identity.prefetch(anonymousId: written(member(top.anonymousId, layout)), userId: written(member(top.userId, layout)))
    }

    /// Blank lines, over-long lines, and what is not a JSON object; on success the line's
    /// layout is in `scratch.top` and the counts are reset.
    @inline(__always)
    private mutating func lineRules(_ buf: UnsafeBufferPointer<UInt8>) -> LineOutcome<Range<Int>>? {
        var firstNonBlank = 0
        while firstNonBlank < buf.count, buf[firstNonBlank].isJSONWhitespace { firstNonBlank += 1 }
        if firstNonBlank == buf.count { return .blank }
        if buf.count > config.delivery.maxEventBytes {
            return reject(DeadLetterReason.tooLarge, "line is \(buf.count) bytes; batching.max_event_bytes is \(config.delivery.maxEventBytes)")
        }
        counts = LineCounts()
        return scan(buf)
    }

    /// `context` must be an object (or absent or null); consent may settle the event.
    @inline(__always)
    private mutating func contextAndConsentRules(
        _ top: TopLevelMembers, _ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>, _ context: inout ObjectLayout?
    ) -> LineOutcome<Range<Int>>? {
        if let c = member(top.context, layout), c.kind != .null {
            // The scan recorded the context's members as it validated them, unless this context's
            // key has escapes: then it is skimmed (the line was validated whole).
            guard c.kind == .object,
                scratch.context.index == top.context || ObjectLayout.skimNested(buf, c.value, reusing: &scratch.context.layout)
            else {
                return reject(DeadLetterReason.invalidContext, "\"context\" is not an object")
            }
            context = scratch.context.layout
        }
        let verdict = context.map { ConsentRules.verdict($0, buf) } ?? .unknown
        if ConsentRules.denial(verdict, requireConsent: config.privacy.requireConsent) != nil { return .skipped(.consentDropped) }
        return nil
    }

    /// A captured `sentAt` goes (the engine stamps its own), and so does a captured `writeKey`:
    /// the engine stamps the configured one on every event, so a captured one would be a
    /// duplicate key and would leak the source's key to the destination.
    @inline(__always)
    private mutating func capturedMemberRules(_ top: TopLevelMembers, _ edits: inout TopLevelEdits) {
        if let sentAt = top.sentAt {
            edits.removeSentAt = true
            // The Android SDK writes `"sentAt":null` on every queued event: nothing is dropped.
            counts.sentAtDropped = scratch.top.members[sentAt].kind != .null
        }
        if top.writeKey != nil {
            edits.removeWriteKey = true
            counts.writeKeyDropped = true
        }
    }

    /// The event's own messageId is kept when it is an identifier; otherwise the line's stable one.
    @inline(__always)
    private mutating func messageIdRule(
        _ top: TopLevelMembers, _ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>, lineNumber: Int, millis: Int64,
        _ edits: inout TopLevelEdits
    ) {
        guard !isIdentifier(member(top.messageId, layout)) else { return }
        edits[.messageId] = .messageId(MessageID.stable(line: buf, lineNumber: lineNumber, millis: millis))
        counts.messageIdGenerated = true
    }

    /// `privacy.drop_properties` on `properties` and `traits`.
    @inline(__always)
    private mutating func privacyRules(
        _ top: TopLevelMembers, _ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>, _ edits: inout TopLevelEdits
    ) {
        edits[.properties] = dropping(drops.properties, from: member(top.properties, layout), buf).map(MemberValue.bytes)
        edits[.traits] = dropping(drops.traits, from: member(top.traits, layout), buf).map(MemberValue.bytes)
    }

    /// `context.library`, the configured context defaults and the privacy rules on `context`.
    @inline(__always)
    private mutating func contextEnrichmentRule(
        _ context: ObjectLayout?, _ buf: UnsafeBufferPointer<UInt8>, _ edits: inout TopLevelEdits
    ) -> LineOutcome<Range<Int>>? {
        // A direct call to an inlined method, not a closure over `self`: see `typeRules` for what
        // a method of the preparer that is not inlined costs per line.
        let fastPath: ContextFastPath? = if let context { contextFastPath(context, buf) } else { nil }
        switch fastPath {
        case .unchanged?: return nil
        case .addLibrary?:
            edits[.context] = .appendingLibrary(to: context!)
            return nil
        case nil:
            switch enrichContext(context, buf) {
            case .success(let ctx):
                edits[.context] = .bytes(ctx)
                return nil
            case .failure(let f): return reject(DeadLetterReason.invalidContext, f.detail)
            }
        }
    }

    /// Renders the edited event at the end of `out`; returns where it is. Static: it needs
    /// nothing of the preparer (see `typeRules` for what a method of it can cost per line).
    @inline(__always)
    private static func render(
        _ edits: inout TopLevelEdits, _ layout: ObjectLayout, _ top: TopLevelMembers, _ buf: UnsafeBufferPointer<UInt8>,
        into out: inout [UInt8]
    ) -> Range<Int> {
        let start = out.count
        if top.hasDuplicates {
            var editor = ObjectEditor(layout)
            edits.apply(to: &editor, buf)
            out.reserveCapacity(start + editor.renderedCapacity)
            editor.render(buf, into: &out)
        } else {
            edits.render(layout, top, buf, into: &out)
        }
        return start..<out.count
    }

    @inline(__always) func member(_ idx: Int?, _ layout: ObjectLayout) -> JSONMember? { idx.map { layout.members[$0] } }

    /// Validates the line into `scratch.top`; the rejection, if it is not a JSON object.
    @inline(__always)
    private mutating func scan(_ buf: UnsafeBufferPointer<UInt8>) -> LineOutcome<Range<Int>>? {
        // The scan reuses the scratch layout's member storage.
        do {
            try ObjectLayout.scanDocument(buf, reusing: &scratch.top, recording: &scratch.context)
            return nil
        } catch {
            switch error.kind {
            case .invalidUTF8: return reject(DeadLetterReason.invalidUTF8, error.description)
            case .unexpectedType: return reject(DeadLetterReason.notAnObject, "the line is valid JSON but not an object")
            case .syntax, .tooDeep:
                if !UTF8Check.isValid(buf) { return reject(DeadLetterReason.invalidUTF8, "the line is not valid UTF-8") }
                return reject(DeadLetterReason.invalidJSON, error.description)
            }
        }
    }

    /// `type` and the members each type needs. `mutating` (nothing is changed) because the
    /// compiler may call it out of line: a non-mutating method called from `prepare` then gets a
    /// copy of the whole preparer (about 1 KB) as its `self`, a mutating one gets its address.
    @inline(__always)
    private mutating func typeRules(
        _ top: TopLevelMembers, _ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>, _ line: inout PreparedEvent
    ) -> LineOutcome<Range<Int>>? {
        guard let typeMember = member(top.type, layout) else { return reject(DeadLetterReason.missingType, "no \"type\" member") }
        guard typeMember.kind == .string else { return reject(DeadLetterReason.missingType, "\"type\" is not a string") }
        guard let type = EventType(jsonString: buf, typeMember.value) else {
            let name = JSONLayoutValues.stringContent(buf, typeMember.value)
            return reject(DeadLetterReason.unknownType, "type \"\(name.prefix(40))\" is not track, identify, page, screen, group or alias")
        }
        line.type = type
        switch type {
        case .track where !isNonEmptyString(member(top.event, layout)):
            return reject(DeadLetterReason.missingEventName, "a track event needs a non-empty string \"event\"")
        case .track where !logoutEvents.isEmpty:
            line.isLogout = logoutEvents.contains(layout.members[top.event!], buf)
        case .group:
            guard let g = IdRef(member(top.groupId, layout), buf) else {
                return reject(DeadLetterReason.missingGroupId, "a group event needs a non-empty \"groupId\"")
            }
            line.groupIdOfGroup = g
        case .alias:
            // Judged as written: the SDKs' alias links the event's own anonymousId to the new
            // userId and has no previousId; an id filled in later is no evidence of the past.
            let hasUser = isIdentifier(member(top.userId, layout))
            let hasPrevious = isIdentifier(member(top.previousId, layout)) || isIdentifier(member(top.anonymousId, layout))
            if let detail = AliasTransition.invalidity(hasUserId: hasUser, hasPreviousOrAnonymousId: hasPrevious) {
                return reject(DeadLetterReason.invalidAlias, detail)
            }
        default: break
        }
        return nil
    }

    /// The event's time: `timestamp`, else `originalTimestamp`, else the replay time with
    /// `default_timestamp: now`; then the input's age limit and the run's time window.
    @inline(__always)
    private mutating func timestampRules(
        _ top: TopLevelMembers, _ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>, _ edits: inout TopLevelEdits,
        _ line: inout PreparedEvent
    ) -> LineOutcome<Range<Int>>? {
        func millis(_ m: JSONMember) -> Int64? {
            guard m.kind == .string else { return nil }
            return Timestamp.epochMillis(utf8: UnsafeBufferPointer(rebasing: buf[(m.value.lowerBound + 1)..<(m.value.upperBound - 1)]))
        }
        if let ts = member(top.timestamp, layout), ts.kind != .null {
            guard let ms = millis(ts) else {
                return reject(DeadLetterReason.invalidTimestamp, "\"timestamp\" is not an ISO-8601 timestamp (YYYY-MM-DD[THH:MM[:SS[.fff]]][zone])")
            }
            line.millis = ms
        } else if let original = member(top.originalTimestamp, layout), original.kind != .null {
            guard let ms = millis(original) else {
                return reject(
                    DeadLetterReason.invalidTimestamp,
                    "no \"timestamp\", and \"originalTimestamp\" is not an ISO-8601 timestamp (YYYY-MM-DD[THH:MM[:SS[.fff]]][zone])")
            }
            line.millis = ms
            counts.originalTimestampUsed = true
        } else {
            guard config.enrichment.defaultTimestamp == .now else {
                return reject(
                    DeadLetterReason.missingTimestamp,
                    "no \"timestamp\" or \"originalTimestamp\" (set enrichment.default_timestamp: now to use the replay time)")
            }
            line.millis = nowMillis()
            edits[.timestamp] = .bytes(JSONStrings.quoted(Timestamp.iso8601(epochMillis: line.millis)))
            counts.timestampDefaulted = true
        }
        if let cutoff = expiryCutoffMillis, line.millis < cutoff { return .skipped(.expired) }
        if line.millis < windowSince || line.millis >= windowUntil { return .skipped(.outsideWindow) }
        return nil
    }

    /// anonymousId (own, derived from the userId, or the device's), then carried userId and
    /// groupId, looked up by their bytes. A placeholder anonymousId (``PlaceholderIds``) is sent
    /// as written, but the line is keyed as if it had none, and carries nothing.
    @inline(__always)
    private mutating func identityRules(
        _ top: TopLevelMembers, _ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>, _ identity: IdentityStore?,
        _ edits: inout TopLevelEdits, _ line: inout PreparedEvent, learningOnly: Bool = false
    ) -> LineOutcome<Range<Int>>? {
        line.ownUserId = IdRef(member(top.userId, layout), buf)
        line.userIdIsString = member(top.userId, layout)?.kind == .string
        let written = IdRef(member(top.anonymousId, layout), buf)
        let placeholder = written.map { $0.withBytes(buf, PlaceholderIds.contains) } ?? false
        if let own = written, !placeholder {
            line.anonymousId = own
            line.anonymousIdCarries = true
        } else if let user = line.ownUserId, config.enrichment.identity.userLines == .derived {
            let derived = user.withBytes(buf) { derivedIds.derived(userId: $0) }
            line.anonymousId = .external(derived)
            if written == nil {
                // Lowercase hex and dashes need no escape.
                edits[.anonymousId] = .quoted(derived)
                counts.anonymousIdDerived = true
            }
        } else if written == nil, line.ownUserId == nil, config.enrichment.identity.deviceLines == .reject {
            return reject(DeadLetterReason.missingIdentity, "the event has neither \"anonymousId\" nor \"userId\"")
        } else {
            line.anonymousId = deviceAnonymousId
            line.anonymousIdCarries = !placeholder
            if written == nil {
                edits[.anonymousId] = .bytes(deviceAnonymousIdJSON)
                counts.anonymousIdFilled = true
            }
        }
        guard let identity else {
            // As written: the alias's previous id, with no group looked up to move.
            if line.type == .alias, line.ownUserId != nil,
                let previous = AliasTransition.previousId(top, layout, buf, ownAnonymousId: line.anonymousIdCarries ? line.anonymousId : nil)
            {
                line.alias = AliasTransition(previousId: previous, movedGroup: nil)
            }
            return nil
        }
        do {
            try carriedIdentityRules(top, layout, buf, identity, &edits, &line, learningOnly: learningOnly)
        } catch {
            return reject(DeadLetterReason.identityStoreError, "\(error)")
        }
        return nil
    }

    /// The carried userId (for a line without its own, by its anonymousId), the alias's
    /// transition, and the carried groupId (for a line without its own). An id written as a
    /// string is the event's own even when empty (an SDK writes `""` after `identify("")`), so
    /// nothing is carried over it; `null` or no member is no id.
    ///
    /// With `learningOnly` (another shard's line, see ``prepareToLearn(_:identity:)``) only what
    /// the identity store learns is looked up: the carried userId of a group event, and an
    /// alias's transition; nothing is carried into the (unrendered) event.
    @inline(__always)
    private mutating func carriedIdentityRules(
        _ top: TopLevelMembers, _ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>, _ identity: IdentityStore,
        _ edits: inout TopLevelEdits, _ line: inout PreparedEvent, learningOnly: Bool
    ) throws {
        let groupId = member(top.groupId, layout)
        let hasGroupId = learningOnly || line.groupIdOfGroup != nil || isIdentifier(groupId) || groupId?.kind == .string
        if line.ownUserId == nil, line.anonymousIdCarries, member(top.userId, layout)?.kind != .string,
            !learningOnly || line.type == .group,
            let carried = try line.anonymousId.withBytes(buf, { try identity.userIdValue(forAnonymousId: $0) })
        {
            line.carriedUserId = carried
            edits[.userId] = .identity(carried)
            counts.userIdCarried = true
        }
        if line.type == .alias, let userId = line.ownUserId,
            let previous = AliasTransition.previousId(top, layout, buf, ownAnonymousId: line.anonymousIdCarries ? line.anonymousId : nil)
        {
            line.alias = try AliasTransition.make(previousId: previous, userId: userId, buf, identity)
        }
        guard !hasGroupId else { return }
        let carried: IdentityValue?
        if let ownUserId = line.ownUserId {
            carried = try ownUserId.withBytes(buf) { try identity.groupIdValue(forUserId: $0) } ?? line.alias?.movedGroup
        } else if let carriedUserId = line.carriedUserId {
            carried = try carriedUserId.withRaw { try identity.groupIdValue(forUserId: $0) }
        } else {
            carried = nil
        }
        if let carried {
            edits[.groupId] = .identity(carried)
            counts.groupIdCarried = true
        }
    }

    // MARK: - Helpers

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

}

/// Storage for one line's layouts, reused from line to line: the line's, and its `context`'s,
/// recorded by the same scan.
struct LineScratch {
    var top = ObjectLayout()
    var context = NestedObject(key: Array("context".utf8))
    /// The context's `device`, skimmed by the context fast path.
    var device = ObjectLayout()
}
