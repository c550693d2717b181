import JSONCore

/// Amplitude's Export API events (one NDJSON line each; every field present, `null` when unset;
/// times like `2025-03-01 09:59:58.123000`, UTC without a zone). See docs/recipes.md.
enum AmplitudeRecipe {
    /// The fields the recipe reads.
    enum Field: Int, CaseIterable {
        /// Ids and time.
        case insertId, uuid, eventType, eventTime, clientEventTime, userId, deviceId
        /// Payload objects and the session.
        case eventProperties, userProperties, groups, groupProperties, sessionId
        /// Device and platform.
        case platform, osName, osVersion, deviceManufacturer, deviceModel, deviceCarrier
        /// App, library, network address and location.
        case versionName, library, ipAddress, city, region, country, locationLat, locationLng
        /// Locale and advertising ids.
        case language, idfa, adid

        /// The field's key in an export record.
        var key: String {
            switch self {
            case .insertId: return "$insert_id"
            case .uuid: return "uuid"
            case .eventType: return "event_type"
            case .eventTime: return "event_time"
            case .clientEventTime: return "client_event_time"
            case .userId: return "user_id"
            case .deviceId: return "device_id"
            case .eventProperties: return "event_properties"
            case .userProperties: return "user_properties"
            case .groups: return "groups"
            case .groupProperties: return "group_properties"
            case .sessionId: return "session_id"
            case .platform: return "platform"
            case .osName: return "os_name"
            case .osVersion: return "os_version"
            case .deviceManufacturer: return "device_manufacturer"
            case .deviceModel: return "device_model"
            case .deviceCarrier: return "device_carrier"
            case .versionName: return "version_name"
            case .library: return "library"
            case .ipAddress: return "ip_address"
            case .city: return "city"
            case .region: return "region"
            case .country: return "country"
            case .locationLat: return "location_lat"
            case .locationLng: return "location_lng"
            case .language: return "language"
            case .idfa: return "idfa"
            case .adid: return "adid"
            }
        }
    }

    private static let table = KeyTable(Field.allCases.map(\.key))

    /// Plans and writes the record's event (none for session markers).
    static func convert(_ record: Record, _ work: inout Workspace, _ out: inout [UInt8], _ events: inout [Range<Int>])
        throws(RecipeFailure)
    {
        let buf = record.bytes
        work.collect(table, from: .top, in: buf)
        let found = work.found
        guard let eventType = found[Field.eventType], eventType.kind == .string, eventType.range.count > 2 else {
            throw .missing(.amplitude, "event_type")
        }
        // Session markers carry nothing but the session's bounds, which `session_id` on every
        // event already gives (integrations.Amplitude.session_id): no event.
        if RecordText.equals(buf, eventType.range, "session_start") || RecordText.equals(buf, eventType.range, "session_end") {
            return
        }
        work.startEvent()
        if RecordText.equals(buf, eventType.range, "$identify") {
            work.plan.type = .identify
        } else if RecordText.equals(buf, eventType.range, "$groupidentify") {
            work.plan.type = .group
        } else if RecordText.equals(buf, eventType.range, "[Amplitude] Page Viewed") {
            work.plan.type = .page
        } else {
            work.plan.event = .json(eventType.range)
        }
        guard let time = found[Field.eventTime] ?? found[Field.clientEventTime] else { throw .missing(.amplitude, "event_time") }
        let timeField = found[Field.eventTime] != nil ? "event_time" : "client_event_time"
        work.plan.timestamp = try work.timestamp(record, time, field: timeField)
        try identities(record, found, &work)
        try payload(record, found, &work)
        context(record, found, &work)
        work.render(buf, into: &out, events: &events)
    }

    /// userId, anonymousId and messageId.
    private static func identities(_ record: Record, _ found: Found, _ work: inout Workspace) throws(RecipeFailure) {
        work.plan.userId = found[Field.userId].map { Piece.id($0) } ?? .absent
        work.plan.anonymousId = found[Field.deviceId].map { Piece.id($0) } ?? .absent
        guard work.plan.hasIdentity else { throw .missing(.amplitude, either: "user_id", or: "device_id") }
        var messageId = found[Field.insertId].map { Piece.id($0) } ?? .absent
        if !messageId.isPresent { messageId = found[Field.uuid].map { Piece.id($0) } ?? .absent }
        if !messageId.isPresent { messageId = work.derivedMessageId(record.identity, .amplitude, index: nil) }
        work.plan.messageId = messageId
    }

    /// properties, traits, groupId and integrations, by the event's type.
    private static func payload(_ record: Record, _ found: Found, _ work: inout Workspace) throws(RecipeFailure) {
        let buf = record.bytes
        let userProperties = found[Field.userProperties].map { work.unwrapSet(record, $0) } ?? .absent
        let groups = found[Field.groups].map { Piece.object($0, in: buf) } ?? .absent
        switch work.plan.type {
        case .identify:
            work.plan.traits = userProperties
        case .group:
            guard let groups = found[Field.groups], let id = firstGroupValue(record, groups, &work) else {
                throw .missing(.amplitude, "groups")
            }
            work.plan.groupId = id
            work.plan.traits = groupTraits(record, found[Field.groupProperties], groups, &work)
            work.context[.traits] = userProperties
        default:
            work.plan.properties = found[Field.eventProperties].map { Piece.object($0, in: buf) } ?? .absent
            work.context[.traits] = userProperties
        }
        var session = Piece.absent
        if let s = found[Field.sessionId], s.kind == .number, s.integer(buf) != -1 { session = .json(s.range) }
        let inner = work.open()
        work.add("session_id", session)
        work.add("groups", groups)
        let amplitude = work.close(inner)
        let outer = work.open()
        work.add("Amplitude", amplitude)
        work.plan.integrations = work.close(outer)
    }

    /// The group's traits: its `group_properties` (unwrapped from `$set`), and its type (the
    /// first key of `groups`) as `group_type`, the trait Segment's Amplitude destination can read
    /// the group type from, unless the properties have one.
    private static func groupTraits(_ record: Record, _ properties: ValueRef?, _ groups: ValueRef, _ work: inout Workspace) -> Piece {
        let buf = record.bytes
        let props = properties.map { work.unwrapSet(record, $0) } ?? .absent
        let mark = work.open()
        var hasType = false
        if case .record(let a, let b) = props, Workspace.skim(record, ValueRef(range: Int(a)..<Int(b), kind: .object), into: &work.inner2) {
            for m in work.inner2.members {
                if RecordText.equals(buf, m.key.lowerBound - 1..<m.key.upperBound + 1, "group_type") { hasType = true }
                work.addVerbatim(m)
            }
        }
        if !hasType, Workspace.skim(record, groups, into: &work.inner2), let first = work.inner2.members.first {
            work.add("group_type", .json(first.key.lowerBound - 1..<first.key.upperBound + 1))
        }
        return work.close(mark)
    }

    /// The value of the first group in `groups` (`{"type": ["value"]}` or `{"type": "value"}`).
    private static func firstGroupValue(_ record: Record, _ groups: ValueRef, _ work: inout Workspace) -> Piece? {
        guard Workspace.skim(record, groups, into: &work.inner), let first = work.inner.members.first else { return nil }
        let v = ValueRef(first)
        if v.kind == .array {
            var items = ArrayItems(record.bytes, v.range)
            guard let item = items.next() else { return nil }
            let id = Piece.id(item)
            return id.isPresent ? id : nil
        }
        let id = Piece.id(v)
        return id.isPresent ? id : nil
    }

    /// The context fields.
    private static func context(_ record: Record, _ found: Found, _ work: inout Workspace) {
        /// Sets a context field to a field's scalar value, when present.
        func set(_ field: ContextField, _ f: Field) {
            if let v = found[f] { work.context[field] = .scalar(v) }
        }
        set(.appVersion, .versionName)
        if let library = found[Field.library] { splitLibrary(record, library, &work) }
        if let platform = found[Field.platform] {
            work.context[.deviceType] = work.lowercased(record, platform)
        }
        // On the web, Amplitude's os_name and os_version are the browser's name and version,
        // which Segment's context has no field for.
        let web = found[Field.platform].map { RecordText.equals(record.bytes, $0.range, "Web") } ?? false
        if !web {
            set(.osName, .osName)
            set(.osVersion, .osVersion)
        }
        set(.deviceManufacturer, .deviceManufacturer)
        set(.deviceModel, .deviceModel)
        set(.deviceAdvertisingId, .idfa)
        work.context.fill(.deviceAdvertisingId, found[Field.adid].map { Piece.scalar($0) } ?? .absent)
        set(.networkCarrier, .deviceCarrier)
        set(.ip, .ipAddress)
        set(.locationCity, .city)
        set(.locationRegion, .region)
        set(.locationCountry, .country)
        set(.locationLatitude, .locationLat)
        set(.locationLongitude, .locationLng)
        set(.locale, .language)
        if work.plan.type == .page, let props = found[Field.eventProperties], Workspace.skim(record, props, into: &work.inner) {
            pageContext(record, &work)
        }
        work.plan.context = work.contextPiece
    }

    /// `library` (`amplitude-swift/1.9.2`) as context.library's name and version.
    private static func splitLibrary(_ record: Record, _ library: ValueRef, _ work: inout Workspace) {
        guard library.kind == .string, library.range.count > 2 else { return }
        guard let content = RecordText.plainContent(record.bytes, library.range),
            let slash = content.firstIndex(where: { record.bytes[$0] == UInt8(ascii: "/") })
        else {
            work.context[.libraryName] = .json(library.range)
            return
        }
        if slash > content.lowerBound { work.context[.libraryName] = .quoted(UInt32(content.lowerBound), UInt32(slash)) }
        if slash + 1 < content.upperBound { work.context[.libraryVersion] = .quoted(UInt32(slash + 1), UInt32(content.upperBound)) }
    }

    /// context.page of a `[Amplitude] Page Viewed` event, from its event properties (in
    /// `work.inner`).
    private static func pageContext(_ record: Record, _ work: inout Workspace) {
        // Every name starts "[Amplitude] Page " (17 bytes): shorter keys are none of them.
        for m in work.inner.members where m.kind == .string && !m.keyHasEscapes && m.key.count > 17 {
            let member = MemberRef(m)
            if RecordText.keyIs(record.bytes, member, "[Amplitude] Page URL") {
                work.context[.pageUrl] = .scalar(ValueRef(m))
            } else if RecordText.keyIs(record.bytes, member, "[Amplitude] Page Path") {
                work.context[.pagePath] = .scalar(ValueRef(m))
            } else if RecordText.keyIs(record.bytes, member, "[Amplitude] Page Title") {
                work.context[.pageTitle] = .scalar(ValueRef(m))
            }
        }
    }
}
