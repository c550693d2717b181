import JSONCore
import Timestamps

/// RudderStack's archived gateway jobs (the archiver's gzipped NDJSON): one job per line,
/// `{"userId": ..., "payload": {"batch": [...], "receivedAt": ..., "requestIP": ...},
/// "createdAt": ..., "messageId": ""}`, each event of `payload.batch` already Segment-shaped.
/// `payload` may also be a JSON-encoded string. See docs/recipes.md.
enum RudderStackRecipe {
    /// The members of a batch event the recipe reads or drops; the others are copied as written.
    enum Field: Int, CaseIterable {
        /// Type, id, times, context and the gateway's additions.
        case type, messageId, timestamp, originalTimestamp, sentAt, receivedAt, context, requestIP, rudderId
        /// Ids and the event name.
        case userId, anonymousId, groupId, previousId, event

        /// The member's key.
        var key: String {
            switch self {
            case .type: return "type"
            case .messageId: return "messageId"
            case .timestamp: return "timestamp"
            case .originalTimestamp: return "originalTimestamp"
            case .sentAt: return "sentAt"
            case .receivedAt: return "receivedAt"
            case .context: return "context"
            case .requestIP: return "request_ip"
            case .rudderId: return "rudderId"
            case .userId: return "userId"
            case .anonymousId: return "anonymousId"
            case .groupId: return "groupId"
            case .previousId: return "previousId"
            case .event: return "event"
            }
        }
    }

    private static let table = KeyTable(Field.allCases.map(\.key))

    /// Plans and writes one Segment event per event of the job's batch.
    static func convert(_ record: Record, _ work: inout Workspace, _ out: inout [UInt8], _ events: inout [Range<Int>])
        throws(RecipeFailure)
    {
        let buf = record.bytes
        guard let index = work.topIndex("payload", in: buf) ?? work.topIndex("EventPayload", in: buf),
            work.top.members[index].kind != .null
        else { throw .missing(.rudderstack, "payload") }
        let payload = work.top.members[index]
        if payload.kind == .string { return try work.convertDecoding(record, payload, field: "payload", &out, &events) }
        guard payload.kind == .object else { throw .invalid(.rudderstack, "payload", "is not an object") }
        var batch: ValueRef?
        var jobReceivedAt: ValueRef?
        var jobIP: ValueRef?
        // The payload's members were recorded while the record was validated (when it is
        // `payload`; `EventPayload`, the older backups' name, is read here).
        let members = work.nested.index == index ? work.nested.layout.members.map(MemberRef.init) : Array(ObjectMembers(buf, ValueRef(payload)))
        for m in members {
            if RecordText.keyIs(buf, m, "batch") {
                batch = m.value
            } else if RecordText.keyIs(buf, m, "receivedAt") {
                jobReceivedAt = m.value
            } else if RecordText.keyIs(buf, m, "requestIP") {
                jobIP = m.value
            }
        }
        guard let batch, batch.kind == .array else { throw .missing(.rudderstack, "payload.batch") }
        var items = ArrayWalker(buf, openingAt: batch.range.lowerBound)
        var position = -1
        while let item = items.next() {
            position += 1
            let index = position
            guard item.kind == .object else { throw .invalid(.rudderstack, "payload.batch[\(index)]", "is not an object") }
            items.resume(at: work.collect(table, openingAt: item.start, in: buf))
            work.startEvent()
            try plan(record, index, jobReceivedAt: jobReceivedAt, jobIP: jobIP, &work)
            work.render(buf, into: &out, events: &events)
        }
    }

    /// Plans one batch event (its members sorted by `table` in `work.found`).
    private static func plan(
        _ record: Record, _ index: Int, jobReceivedAt: ValueRef?, jobIP: ValueRef?, _ work: inout Workspace
    ) throws(RecipeFailure) {
        let buf = record.bytes
        var path: String { "payload.batch[\(index)]" }
        let found = work.found
        guard let type = found[Field.type], let segmentType = segmentType(buf, type) else {
            throw found[Field.type] == nil
                ? .missing(.rudderstack, "\(path).type") : .invalid(.rudderstack, "\(path).type", "is not a Segment call type")
        }
        work.plan.type = segmentType
        for (field, slot) in [(Field.userId, 0), (.anonymousId, 1), (.groupId, 2), (.previousId, 3)] {
            let piece = found[field].map { Piece.id($0) } ?? .absent
            switch slot {
            case 0: work.plan.userId = piece
            case 1: work.plan.anonymousId = piece
            case 2: work.plan.groupId = piece
            default: work.plan.previousId = piece
            }
        }
        guard work.plan.hasIdentity else { throw .missing(.rudderstack, either: "\(path).userId", or: "\(path).anonymousId") }
        if segmentType == .group, !work.plan.groupId.isPresent { throw .missing(.rudderstack, "\(path).groupId") }
        if segmentType == .alias, !work.plan.previousId.isPresent { throw .missing(.rudderstack, "\(path).previousId") }
        if segmentType == .track, !(found[Field.event].map { Piece.scalar($0) } ?? .absent).isPresent {
            throw .missing(.rudderstack, "\(path).event")
        }
        var messageId = found[Field.messageId].map { Piece.id($0) } ?? .absent
        if !messageId.isPresent { messageId = work.derivedMessageId(record.identity, .rudderstack, index: index) }
        work.plan.messageId = messageId
        work.plan.timestamp = try timestamp(record, index, found, jobReceivedAt: jobReceivedAt, &work)
        work.plan.context = context(record, found, ip: found[Field.requestIP] ?? jobIP, &work)
        let mark = work.open()
        for (i, m) in found.members.enumerated() where m.value.kind != .null {
            let f = found.fieldOfMember[i]
            if f < 0 || f == Int16(Field.originalTimestamp.rawValue) || f == Int16(Field.event.rawValue) { work.addVerbatim(m) }
        }
        work.plan.extra = work.closeExtra(mark)
    }

    /// The Segment call type of the event's `type`.
    private static func segmentType(_ buf: UnsafeBufferPointer<UInt8>, _ type: ValueRef) -> SegmentType? {
        guard type.kind == .string else { return nil }
        let names: [(StaticString, SegmentType)] = [
            ("track", .track), ("identify", .identify), ("page", .page), ("screen", .screen), ("group", .group), ("alias", .alias),
        ]
        for (name, t) in names where RecordText.equals(buf, type.range, name) { return t }
        return nil
    }

    /// `timestamp` when the event has one; else `originalTimestamp` corrected for the device's
    /// clock skew (plus `receivedAt` minus `sentAt`, as Segment and RudderStack compute it);
    /// else the time the gateway received it.
    private static func timestamp(
        _ record: Record, _ index: Int, _ found: Found, jobReceivedAt: ValueRef?, _ work: inout Workspace
    ) throws(RecipeFailure) -> Piece {
        let buf = record.bytes
        var path: String { "payload.batch[\(index)]" }
        if let t = found[Field.timestamp] { return try work.timestamp(record, t, field: "\(path).timestamp") }
        let receivedAt = found[Field.receivedAt] ?? jobReceivedAt
        guard let original = found[Field.originalTimestamp] else {
            guard let receivedAt else { throw .missing(.rudderstack, "\(path).timestamp") }
            return try work.timestamp(record, receivedAt, field: "\(path).receivedAt")
        }
        guard let originalMillis = millis(buf, original) else {
            throw .invalid(.rudderstack, "\(path).originalTimestamp", "is not a valid timestamp")
        }
        var skew: Int64 = 0
        if let sent = found[Field.sentAt].flatMap({ millis(buf, $0) }), let received = receivedAt.flatMap({ millis(buf, $0) }) {
            skew = received - sent
        }
        return try work.timestamp(record, millis: originalMillis + skew, field: "\(path).originalTimestamp")
    }

    /// The milliseconds of an ISO 8601 string value.
    private static func millis(_ buf: UnsafeBufferPointer<UInt8>, _ value: ValueRef) -> Int64? {
        guard value.kind == .string, let text = value.plainText(buf) else { return nil }
        return Timestamp.epochMillis(utf8: text)
    }

    /// The event's `context`, with `ip` from the gateway's `request_ip` when it has none.
    private static func context(_ record: Record, _ found: Found, ip: ValueRef?, _ work: inout Workspace) -> Piece {
        let context = found[Field.context]
        let ipPiece = ip.map { Piece.scalar($0) } ?? .absent
        guard let context, context.kind == .object else {
            let mark = work.open()
            work.add("ip", ipPiece)
            return work.close(mark)
        }
        guard ipPiece.isPresent, !ObjectMembers(record.bytes, context).contains(where: { RecordText.keyIs(record.bytes, $0, "ip") }) else {
            return .json(context.range)
        }
        let mark = work.open()
        for m in ObjectMembers(record.bytes, context) { work.addVerbatim(m) }
        work.add("ip", ipPiece)
        return work.close(mark)
    }
}
