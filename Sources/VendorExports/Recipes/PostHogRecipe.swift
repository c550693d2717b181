import JSONCore

/// PostHog's S3 batch export of the events model as JSON Lines: `uuid`, `event`, `distinct_id`,
/// `timestamp` (ISO 8601), `properties` (an object; a JSON-encoded string is also read) and more.
/// See docs/recipes.md.
enum PostHogRecipe {
    private static let table = KeyTable(PostHogField.allCases.map(\.key))

    /// The top-level columns the recipe reads.
    enum Column: Int, CaseIterable {
        /// The columns of the events model.
        case uuid, event, distinctId, timestamp, properties, ip, set, setOnce

        var key: String {
            switch self {
            case .uuid: return "uuid"
            case .event: return "event"
            case .distinctId: return "distinct_id"
            case .timestamp: return "timestamp"
            case .properties: return "properties"
            case .ip: return "ip"
            case .set: return "set"
            case .setOnce: return "set_once"
            }
        }
    }

    private static let columns = KeyTable(Column.allCases.map(\.key))

    /// The values of the top-level columns (nil when absent or `null`).
    struct Columns {
        var uuid, event, distinctId, timestamp, properties, ip, set, setOnce: ValueRef?

        /// The columns of `found` (sorted by the columns' table).
        init(_ found: Found) {
            uuid = found[Column.uuid]
            event = found[Column.event]
            distinctId = found[Column.distinctId]
            timestamp = found[Column.timestamp]
            properties = found[Column.properties]
            ip = found[Column.ip]
            set = found[Column.set]
            setOnce = found[Column.setOnce]
        }
    }

    /// Plans and writes the record's event.
    static func convert(_ record: Record, _ work: inout Workspace, _ out: inout [UInt8], _ events: inout [Range<Int>])
        throws(RecipeFailure)
    {
        let buf = record.bytes
        work.collect(columns, from: .top, in: buf)
        let top = Columns(work.found)
        // The index of the `properties` member whose value found holds (the last one).
        var propertiesIndex: Int?
        for (i, f) in work.found.fieldOfMember.enumerated() where f == Column.properties.rawValue { propertiesIndex = i }
        if let props = top.properties, props.kind == .string, let i = propertiesIndex {
            return try work.convertDecoding(record, work.top.members[i], field: "properties", &out, &events)
        }
        guard let event = top.event, event.kind == .string, event.range.count > 2 else {
            throw .missing(.posthog, "event")
        }
        let kind = eventKind(buf, event.range)
        if let props = top.properties, let index = propertiesIndex {
            guard props.kind == .object else { throw .invalid(.posthog, "properties", "is not an object") }
            if work.nested.index == index {
                work.collect(table, from: .nested, in: buf)  // recorded while the record was validated
            } else {
                work.collect(table, object: props, in: buf)
            }
        } else {
            work.collect(table, object: ValueRef(range: 0..<0, kind: .null), in: buf)
        }
        let found = work.found
        work.startEvent()
        switch kind {
        case .identify, .set: work.plan.type = .identify
        case .pageView: work.plan.type = .page
        case .screen:
            work.plan.type = .screen
            work.plan.name = found[PostHogField.screenName].map { Piece.scalar($0) } ?? .absent
        case .groupIdentify: work.plan.type = .group
        case .alias, .mergeDangerously: work.plan.type = .alias
        case .track: work.plan.event = .json(event.range)
        }
        guard let time = top.timestamp else { throw .missing(.posthog, "timestamp") }
        work.plan.timestamp = try work.timestamp(record, time, field: "timestamp")
        try identities(record, found, top, kind, &work)
        var messageId = top.uuid.map { Piece.id($0) } ?? .absent
        if !messageId.isPresent { messageId = work.derivedMessageId(record.identity, .posthog, index: nil) }
        work.plan.messageId = messageId
        try payload(record, found, top, kind, &work)
        for raw in PostHogField.currentURL.rawValue...PostHogField.utmContent.rawValue {
            guard let v = found[raw], let target = PostHogField.contextTargets[raw] else { continue }
            work.context.fill(target, .scalar(v))
        }
        if kind == .pageView { work.context[.pageTitle] = found[PostHogField.title].map { Piece.scalar($0) } ?? .absent }
        if let referrer = found[PostHogField.referrer], RecordText.equals(buf, referrer.range, "$direct") {
            work.context[.pageReferrer] = .absent  // PostHog's word for "no referrer"
        }
        if let ip = top.ip { work.context.fill(.ip, .scalar(ip)) }
        work.plan.context = work.contextPiece
        work.render(buf, into: &out, events: &events)
    }

    /// The kind of event `name` is.
    private static func eventKind(_ buf: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> PostHogEventKind {
        guard buf[name.lowerBound + 1] == UInt8(ascii: "$") else { return .track }
        if RecordText.equals(buf, name, "$identify") { return .identify }
        if RecordText.equals(buf, name, "$set") { return .set }
        if RecordText.equals(buf, name, "$pageview") { return .pageView }
        if RecordText.equals(buf, name, "$screen") { return .screen }
        if RecordText.equals(buf, name, "$groupidentify") { return .groupIdentify }
        if RecordText.equals(buf, name, "$create_alias") { return .alias }
        if RecordText.equals(buf, name, "$merge_dangerously") { return .mergeDangerously }
        return .track
    }

    /// userId, anonymousId, previousId and groupId, by the event's kind.
    private static func identities(_ record: Record, _ found: Found, _ top: Columns, _ kind: PostHogEventKind, _ work: inout Workspace)
        throws(RecipeFailure)
    {
        let buf = record.bytes
        let distinct = top.distinctId ?? found[PostHogField.distinctId]
        guard let distinct, Piece.id(distinct).isPresent else { throw .missing(.posthog, "distinct_id") }
        let device = found[PostHogField.deviceId]
        switch kind {
        case .alias, .mergeDangerously:
            guard let alias = found[PostHogField.alias], Piece.id(alias).isPresent else { throw .missing(.posthog, "properties.alias") }
            // $create_alias: `alias` is the new id for the person of distinct_id; $merge_dangerously:
            // the person of `alias` is merged into the person of distinct_id.
            work.plan.userId = kind == .alias ? .id(alias) : .id(distinct)
            work.plan.previousId = kind == .alias ? .id(distinct) : .id(alias)
            return
        case .identify:
            work.plan.userId = .id(distinct)
            let anon = found[PostHogField.anonDistinctId] ?? device
            if let anon, !RecordText.sameBytes(buf, anon.range, distinct.range) { work.plan.anonymousId = .id(anon) }
            return
        default: break
        }
        // posthog-js marks its events `$is_identified`; without it, an event whose distinct_id is
        // its own `$device_id` is anonymous.
        var identified = true
        if let flag = found[PostHogField.isIdentified], flag.kind == .bool {
            identified = buf[flag.range.lowerBound] == UInt8(ascii: "t")
        } else if let device, RecordText.sameBytes(buf, device.range, distinct.range) {
            identified = false
        }
        if identified {
            work.plan.userId = .id(distinct)
            if let device, !RecordText.sameBytes(buf, device.range, distinct.range) { work.plan.anonymousId = .id(device) }
        } else {
            work.plan.anonymousId = .id(distinct)
        }
    }

    /// properties, traits and groupId, by the event's kind.
    private static func payload(_ record: Record, _ found: Found, _ top: Columns, _ kind: PostHogEventKind, _ work: inout Workspace)
        throws(RecipeFailure)
    {
        let set = personProperties(record, found, top, &work)
        switch kind {
        case .identify, .set: work.plan.traits = set
        case .groupIdentify:
            guard let key = found[PostHogField.groupKey], Piece.id(key).isPresent else { throw .missing(.posthog, "properties.$group_key") }
            work.plan.groupId = .id(key)
            let mark = work.open()
            var hasType = false
            if let groupSet = found[PostHogField.groupSet] {
                for m in ObjectMembers(record.bytes, groupSet) {
                    if RecordText.keyIs(record.bytes, m, "group_type") { hasType = true }
                    work.addVerbatim(m)
                }
            }
            if !hasType { work.add("group_type", found[PostHogField.groupType].map { Piece.scalar($0) } ?? .absent) }
            work.plan.traits = work.close(mark)
            work.context[.traits] = set
        case .alias, .mergeDangerously: break
        default:
            work.context[.traits] = set
        }
        if kind != .alias && kind != .mergeDangerously && kind != .groupIdentify && kind != .identify && kind != .set {
            work.plan.properties = remaining(record, kind, &work)
        }
    }

    /// `$set`, with the members of `$set_once` it does not have (the older exports' top-level
    /// `set` and `set_once` columns when the properties have neither).
    private static func personProperties(_ record: Record, _ found: Found, _ top: Columns, _ work: inout Workspace) -> Piece {
        let buf = record.bytes
        let set = found[PostHogField.set] ?? top.set
        let setOnce = found[PostHogField.setOnce] ?? top.setOnce
        let mark = work.open()
        if let set {
            for m in ObjectMembers(buf, set) { work.addVerbatim(m) }
        }
        if let setOnce {
            for m in ObjectMembers(buf, setOnce) {
                let inSet = set.map { s in ObjectMembers(buf, s).contains { RecordText.sameBytes(buf, $0.key, m.key) } } ?? false
                if !inSet { work.addVerbatim(m) }
            }
        }
        return work.close(mark)
    }

    /// The properties that stay (everything the recipe does not read or move), as written.
    private static func remaining(_ record: Record, _ kind: PostHogEventKind, _ work: inout Workspace) -> Piece {
        let mark = work.open()
        let members = work.found.members
        let fields = work.found.fieldOfMember
        for (i, m) in members.enumerated() {
            let f = fields[i]
            if f >= 0, !PostHogField(rawValue: Int(f))!.kept(on: kind) { continue }
            work.addVerbatim(m)
        }
        return work.close(mark)
    }
}
