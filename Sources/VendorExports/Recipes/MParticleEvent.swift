import JSONCore

/// One mParticle event of a batch: `{"event_type": ..., "data": {...}}`.
enum MParticleEvent {
    /// The members of `data` that every event type can have, which the recipe maps or drops;
    /// the others go to `properties`.
    enum DataField: Int, CaseIterable {
        /// Ids, session and times.
        case eventId, eventNum, sourceMessageId, sessionId, sessionUUID, sessionStart, timestamp, eventStart
        /// Context, attributes, flags and the names the type-specific code reads.
        case location, deviceCurrentState, customAttributes, customFlags, messageId, messageType, eventName, screenName

        /// The member's key.
        var key: String {
            switch self {
            case .eventId: return "event_id"
            case .eventNum: return "event_num"
            case .sourceMessageId: return "source_message_id"
            case .sessionId: return "session_id"
            case .sessionUUID: return "session_uuid"
            case .sessionStart: return "session_start_unixtime_ms"
            case .timestamp: return "timestamp_unixtime_ms"
            case .eventStart: return "event_start_unixtime_ms"
            case .location: return "location"
            case .deviceCurrentState: return "device_current_state"
            case .customAttributes: return "custom_attributes"
            case .customFlags: return "custom_flags"
            case .messageId: return "message_id"
            case .messageType: return "message_type"
            case .eventName: return "event_name"
            case .screenName: return "screen_name"
            }
        }
    }

    private static let common = KeyTable(DataField.allCases.map(\.key))

    /// Plans event `index` of the batch, the object whose `{` is at `start`: whether it becomes
    /// a Segment event (not for session markers), and one past its closing brace.
    static func plan(_ record: Record, index: Int, openingAt start: Int, _ work: inout Workspace) throws(RecipeFailure) -> (Bool, Int) {
        let buf = record.bytes
        var type: ValueRef?
        var hasData = false
        var event = ObjectWalker(buf, openingAt: start)
        while let m = event.next() {
            if m.kind == .object, !hasData, RecordText.keyIs(buf, m.member(endingAt: m.valueStart), "data") {
                // The data object is sorted as it is read: not skipped first.
                event.resume(at: work.collect(common, openingAt: m.valueStart, in: buf))
                hasData = true
            } else {
                let member = event.skip()
                if RecordText.keyIs(buf, member, "event_type") { type = member.value }
            }
        }
        guard let type, type.kind == .string else { throw .missing(.mparticle, "events[\(index)].event_type") }
        guard hasData else { throw .missing(.mparticle, "events[\(index)].data") }
        let t = type.range
        if RecordText.equals(buf, t, "session_start") || RecordText.equals(buf, t, "session_end") { return (false, event.end!) }
        return (try plan(record, index: index, type: t, &work), event.end!)
    }

    /// Plans an event of type `t` whose data is sorted in `work.found`.
    private static func plan(_ record: Record, index: Int, type t: Range<Int>, _ work: inout Workspace) throws(RecipeFailure) -> Bool {
        let buf = record.bytes
        let found = work.found
        try timeAndId(record, index, found, &work)
        if let location = found[DataField.location] { MParticleContext.location(record, location, &work) }
        if let state = found[DataField.deviceCurrentState] {
            for m in ObjectMembers(buf, state) where RecordText.keyIs(buf, m, "data_connection_type") {
                if RecordText.equals(buf, m.value.range, "wifi") { work.context[.networkWifi] = .bool(true) }
                if RecordText.equals(buf, m.value.range, "mobile") { work.context[.networkCellular] = .bool(true) }
            }
        }
        let mark = work.open()
        if let attributes = found[DataField.customAttributes] {
            for m in ObjectMembers(buf, attributes) where m.value.kind != .null { work.addVerbatim(m) }
        }
        if RecordText.equals(buf, t, "commerce_event") {
            try MParticleCommerce.plan(record, index: index, found, &work)
        } else {
            try name(record, index, t, found, &work)
            for (i, m) in found.members.enumerated() where found.fieldOfMember[i] < 0 && m.value.kind != .null { work.addVerbatim(m) }
        }
        work.plan.properties = work.close(mark)
        return true
    }

    /// timestamp (`timestamp_unixtime_ms`, a number or a string of one) and messageId
    /// (`source_message_id`, else derived from the record and the event's index).
    private static func timeAndId(_ record: Record, _ index: Int, _ found: Found, _ work: inout Workspace) throws(RecipeFailure) {
        /// The field path, built only for a failure.
        func field() -> String { "events[\(index)].data.timestamp_unixtime_ms" }
        guard let time = found[DataField.timestamp] else { throw .missing(.mparticle, field()) }
        guard let millis = time.integer(record.bytes) else { throw .invalid(.mparticle, field(), "is not a number of milliseconds") }
        work.plan.timestamp = try work.timestamp(record, millis: millis, field: field())
        var messageId = found[DataField.sourceMessageId].map { Piece.id($0) } ?? .absent
        if !messageId.isPresent { messageId = work.derivedMessageId(record.identity, .mparticle, index: index) }
        work.plan.messageId = messageId
    }

    /// The Segment type and name of a non-commerce event of mParticle type `t`.
    private static func name(_ record: Record, _ index: Int, _ t: Range<Int>, _ found: Found, _ work: inout Workspace) throws(RecipeFailure) {
        let buf = record.bytes
        if RecordText.equals(buf, t, "custom_event") {
            guard let name = found[DataField.eventName], name.kind == .string, name.range.count > 2 else {
                throw .missing(.mparticle, "events[\(index)].data.event_name")
            }
            work.plan.event = .json(name.range)
        } else if RecordText.equals(buf, t, "screen_view") {
            work.plan.type = .screen
            work.plan.name = found[DataField.screenName].map { Piece.scalar($0) } ?? .absent
        } else if RecordText.equals(buf, t, "application_state_transition") {
            work.plan.event = lifecycleName(record, found) ?? .json(t)
        } else if RecordText.equals(buf, t, "uninstall") {
            work.plan.event = .text("Application Uninstalled")
        } else if RecordText.equals(buf, t, "crash_report") {
            work.plan.event = .text("Application Crashed")
        } else {
            work.plan.event = .json(t)
        }
    }

    /// The Segment lifecycle event of an `application_state_transition` (its data sorted in
    /// `found`); nil for a transition the spec has no event for (`application_exit`).
    private static func lifecycleName(_ record: Record, _ found: Found) -> Piece? {
        let buf = record.bytes
        var kind: ValueRef?
        var firstRun = false
        var upgrade = false
        for m in found.members {
            if RecordText.keyIs(buf, m, "application_transition_type") {
                kind = m.value
            } else if RecordText.keyIs(buf, m, "is_first_run") {
                firstRun = m.value.kind == .bool && buf[m.value.range.lowerBound] == UInt8(ascii: "t")
            } else if RecordText.keyIs(buf, m, "is_upgrade") {
                upgrade = m.value.kind == .bool && buf[m.value.range.lowerBound] == UInt8(ascii: "t")
            }
        }
        guard let kind else { return nil }
        if RecordText.equals(buf, kind.range, "application_initialized") {
            if firstRun { return .text("Application Installed") }
            if upgrade { return .text("Application Updated") }
            return .text("Application Opened")
        }
        if RecordText.equals(buf, kind.range, "application_foreground") { return .text("Application Opened") }
        if RecordText.equals(buf, kind.range, "application_background") { return .text("Application Backgrounded") }
        return nil
    }
}
