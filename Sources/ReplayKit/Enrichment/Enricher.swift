import Foundation
import JSONCore

/// Turns one input line into a correct, enriched event or a clear rejection.
///
/// Each line is validated once with `ObjectLayout.scanDocument`; edits are spliced with
/// `ObjectEditor`, so untouched members reach the output byte for byte. See `docs/enrichment.md`.
/// Not thread-safe: one enricher per pipeline, fed in read order.
public final class Enricher {
    /// The `context.library.version` written into every event.
    public static let libraryVersion = "0.1.0"
    static let eventTypes: Set<String> = ["track", "identify", "page", "screen", "group", "alias"]

    let config: ReplayConfig
    let identity: IdentityStore
    let nowMillis: () -> Int64
    let libraryJSON: [UInt8]
    let defaults: ContextDefaultsJSON
    /// What enrichment did so far.
    public internal(set) var stats = EnrichStats()

    /// Creates an enricher. `nowMillis` is the clock for `default_timestamp: now` (injectable for tests).
    public init(config: ReplayConfig, identity: IdentityStore, nowMillis: @escaping () -> Int64 = Enricher.systemMillis) {
        self.config = config
        self.identity = identity
        self.nowMillis = nowMillis
        var lib: [UInt8] = Array("{\"name\":\"mr-replay\",\"version\":".utf8)
        lib += JSONStrings.quoted(Enricher.libraryVersion)
        lib.append(UInt8(ascii: "}"))
        libraryJSON = lib
        defaults = ContextDefaultsJSON(config.enrichment.context)
    }

    /// The system clock in epoch milliseconds.
    public static func systemMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Enriches one line. `sequence` is a global, increasing number for this line in read order,
    /// used to tag identity mappings learned from it (see ``IdentityStore/commit(throughSequence:)``).
    public func process(_ line: UnsafeBufferPointer<UInt8>, lineNumber: Int, sequence: UInt64) -> EnrichResult {
        let result = enrich(line, lineNumber: lineNumber, sequence: sequence)
        switch result {
        case .event: stats.events += 1
        case .blank: stats.blank += 1
        case .deadLetter(let reason, _): stats.deadLetters[reason, default: 0] += 1
        }
        return result
    }

    private func reject(_ reason: String, _ detail: String) -> EnrichResult { .deadLetter(reason: reason, detail: detail) }

    private func enrich(_ buf: UnsafeBufferPointer<UInt8>, lineNumber: Int, sequence: UInt64) -> EnrichResult {
        var firstNonBlank = 0
        while firstNonBlank < buf.count, isWhitespace(buf[firstNonBlank]) { firstNonBlank += 1 }
        if firstNonBlank == buf.count { return .blank }
        if buf.count > config.batching.maxEventBytes {
            return reject(DeadLetterReason.tooLarge, "line is \(buf.count) bytes; batching.max_event_bytes is \(config.batching.maxEventBytes)")
        }
        let layout: ObjectLayout
        do {
            layout = try ObjectLayout.scanDocument(buf)
        } catch {
            switch error.kind {
            case .invalidUTF8: return reject(DeadLetterReason.invalidUTF8, error.description)
            case .unexpectedType: return reject(DeadLetterReason.notAnObject, "the line is valid JSON but not an object")
            case .syntax, .tooDeep:
                if !UTF8Check.isValid(buf) { return reject(DeadLetterReason.invalidUTF8, "the line is not valid UTF-8") }
                return reject(DeadLetterReason.invalidJSON, error.description)
            }
        }

        // Type and type-specific required fields.
        guard let typeMember = layout.member("type", in: buf) else { return reject(DeadLetterReason.missingType, "no \"type\" member") }
        guard typeMember.kind == .string else { return reject(DeadLetterReason.missingType, "\"type\" is not a string") }
        let type = JSONLayoutValues.stringContent(buf, typeMember.value)
        guard Self.eventTypes.contains(type) else {
            return reject(DeadLetterReason.unknownType, "type \"\(type.prefix(40))\" is not track, identify, page, screen, group or alias")
        }
        if type == "track", nonEmptyString(layout, "event", buf) == nil {
            return reject(DeadLetterReason.missingEventName, "a track event needs a non-empty string \"event\"")
        }
        var groupIdOfGroup: String?
        if type == "group" {
            guard let g = identifier(layout, "groupId", buf) else {
                return reject(DeadLetterReason.missingGroupId, "a group event needs a non-empty \"groupId\"")
            }
            groupIdOfGroup = g
        }

        // Context shape and consent.
        var context: ObjectLayout?
        if let c = layout.member("context", in: buf), c.kind != .null {
            guard c.kind == .object, let nested = ObjectLayout.scanNested(buf, c.value) else {
                return reject(DeadLetterReason.invalidContext, "\"context\" is not an object")
            }
            context = nested
        }
        if let context, let denial = consentDenial(context, buf) {
            return reject(DeadLetterReason.consentDenied, denial)
        }

        // Timestamp.
        var editor = ObjectEditor(layout)
        let millis: Int64
        let tsMember = layout.member("timestamp", in: buf)
        if tsMember == nil || tsMember?.kind == .null {
            guard config.enrichment.defaultTimestamp == .now else {
                return reject(DeadLetterReason.missingTimestamp, "no \"timestamp\" (set enrichment.default_timestamp: now to use the replay time)")
            }
            millis = nowMillis()
            editor.set("timestamp", string: Timestamps.format(millis: millis), in: buf)
            stats.timestampsDefaulted += 1
        } else {
            let ts = tsMember!
            guard ts.kind == .string,
                let ms = Timestamps.parseMillis(UnsafeBufferPointer(rebasing: buf[(ts.value.lowerBound + 1)..<(ts.value.upperBound - 1)]))
            else {
                return reject(DeadLetterReason.invalidTimestamp, "\"timestamp\" is not an ISO-8601 date-time (YYYY-MM-DDTHH:MM:SS[.fff][zone])")
            }
            millis = ms
        }
        if editor.remove("sentAt", in: buf) { stats.sentAtDropped += 1 }

        // Identity: anonymousId, carried userId / groupId, learning.
        var anonymousId = identifier(layout, "anonymousId", buf)
        if anonymousId == nil {
            anonymousId = identity.deviceAnonymousId
            editor.set("anonymousId", string: identity.deviceAnonymousId, in: buf)
            stats.anonymousIdsFilled += 1
        }
        let anon = anonymousId!
        let ownUserId = identifier(layout, "userId", buf)
        var userId = ownUserId
        do {
            if userId == nil, let carried = try identity.userId(forAnonymousId: anon) {
                userId = carried
                editor.set("userId", string: carried, in: buf)
                stats.userIdsCarried += 1
            }
            if groupIdOfGroup == nil, let u = userId, identifier(layout, "groupId", buf) == nil, let carried = try identity.groupId(forUserId: u) {
                editor.set("groupId", string: carried, in: buf)
                stats.groupIdsCarried += 1
            }
        } catch {
            return reject(DeadLetterReason.identityStoreError, "\(error)")
        }

        // messageId.
        let messageId: String
        if let existing = identifier(layout, "messageId", buf) {
            messageId = existing
        } else {
            messageId = StableMessageId.make(line: buf, lineNumber: lineNumber, millis: millis)
            editor.set("messageId", string: messageId, in: buf)
            stats.messageIdsGenerated += 1
        }

        // Privacy on properties / traits, then context.
        if !config.privacy.dropProperties.isEmpty {
            if let dropped = dropKeys(layout, "properties", buf) { editor.set("properties", raw: dropped, in: buf) }
            if let dropped = dropKeys(layout, "traits", buf) { editor.set("traits", raw: dropped, in: buf) }
        }
        switch enrichContext(context, buf) {
        case .success(let ctx): editor.set("context", raw: ctx, in: buf)
        case .failure(let f): return reject(DeadLetterReason.invalidContext, f.detail)
        }

        // Learn only from lines that become events.
        if let u = ownUserId, type == "identify" || type == "alias" {
            identity.learnUser(anonymousId: anon, userId: u, sequence: sequence)
        }
        if let g = groupIdOfGroup, let u = userId {
            identity.learnGroup(userId: u, groupId: g, sequence: sequence)
        }

        var out: [UInt8] = []
        out.reserveCapacity(buf.count + 256)
        editor.render(buf, into: &out)
        return .event(bytes: out, messageId: messageId, orderingKey: anon)
    }

    // MARK: - Helpers

    @inline(__always) func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    /// A non-empty string member.
    func nonEmptyString(_ layout: ObjectLayout, _ key: String, _ buf: UnsafeBufferPointer<UInt8>) -> String? {
        guard let m = layout.member(key, in: buf), m.kind == .string, m.value.count > 2 else { return nil }
        return JSONLayoutValues.stringContent(buf, m.value)
    }

    /// A non-empty string member, or a number member as its text (ids are sometimes numeric).
    func identifier(_ layout: ObjectLayout, _ key: String, _ buf: UnsafeBufferPointer<UInt8>) -> String? {
        guard let m = layout.member(key, in: buf) else { return nil }
        if m.kind == .number { return String(decoding: UnsafeBufferPointer(rebasing: buf[m.value]), as: UTF8.self) }
        guard m.kind == .string, m.value.count > 2 else { return nil }
        return JSONLayoutValues.stringContent(buf, m.value)
    }

    /// Whether a member is the literal `true` / `false`.
    func literal(_ layout: ObjectLayout, _ key: String, _ buf: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let m = layout.member(key, in: buf), m.kind == .bool else { return nil }
        return buf[m.value.lowerBound] == UInt8(ascii: "t")
    }
}
