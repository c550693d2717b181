import JSONCore

/// Mixpanel's raw event export (`/api/2.0/export`): `{"event": ..., "properties": {...}}` per line,
/// `properties.time` in seconds (or milliseconds with `time_in_ms`). See docs/recipes.md.
enum MixpanelRecipe {
    private static let table = KeyTable(MixpanelField.allCases.map(\.key))

    /// Plans and writes the record's event.
    static func convert(_ record: Record, _ work: inout Workspace, _ out: inout [UInt8], _ events: inout [Range<Int>])
        throws(RecipeFailure)
    {
        let buf = record.bytes
        guard let event = work.topMember("event", in: buf), event.value.kind == .string, event.value.range.count > 2 else {
            throw .missing(.mixpanel, "event")
        }
        guard let index = work.topIndex("properties", in: buf), work.top.members[index].kind == .object else {
            throw .missing(.mixpanel, "properties")
        }
        if work.nested.index == index {
            work.collect(table, from: .nested, in: buf)  // recorded while the record was validated
        } else {
            work.collect(table, object: ValueRef(work.top.members[index]), in: buf)
        }
        let found = work.found
        let kind = eventKind(buf, event.value.range)
        work.startEvent()
        switch kind {
        case .identify: work.plan.type = .identify
        case .createAlias, .merge: work.plan.type = .alias
        case .pageView: work.plan.type = .page
        case .track: work.plan.event = .json(event.value.range)
        }
        work.plan.timestamp = try timestamp(record, found, &work)
        try identities(record, found, kind, &work)
        var messageId = found[MixpanelField.insertId].map { Piece.id($0) } ?? .absent
        if !messageId.isPresent { messageId = work.derivedMessageId(record.identity, .mixpanel, index: nil) }
        work.plan.messageId = messageId
        let payload = remainingProperties(record, kind, &work)
        switch kind {
        case .identify: work.plan.traits = payload
        case .createAlias, .merge: break  // an alias has no properties
        default: work.plan.properties = payload
        }
        for raw in MixpanelField.os.rawValue...MixpanelField.pageSearch.rawValue {
            guard let v = found[raw], let target = MixpanelField.contextTargets[raw], !MixpanelField(rawValue: raw)!.kept(on: kind) else {
                continue
            }
            work.context[target] = .scalar(v)
        }
        work.plan.context = work.contextPiece
        work.render(buf, into: &out, events: &events)
    }

    /// The kind of event `name` is.
    private static func eventKind(_ buf: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> MixpanelEventKind {
        guard buf[name.lowerBound + 1] == UInt8(ascii: "$") else { return .track }
        if RecordText.equals(buf, name, "$identify") { return .identify }
        if RecordText.equals(buf, name, "$create_alias") { return .createAlias }
        if RecordText.equals(buf, name, "$merge") { return .merge }
        if RecordText.equals(buf, name, "$mp_web_page_view") { return .pageView }
        return .track
    }

    /// `properties.time`: seconds since 1970 (a fraction allowed), or milliseconds when the export
    /// was made with `time_in_ms` (told apart by size: 10^11 seconds is past the year 5000).
    private static func timestamp(_ record: Record, _ found: Found, _ work: inout Workspace) throws(RecipeFailure) -> Piece {
        guard let time = found[MixpanelField.time] else { throw .missing(.mixpanel, "properties.time") }
        guard time.kind == .number, let text = time.plainText(record.bytes),
            let millisIfSeconds = RecordText.scaledDecimal(text, scale: 3)
        else { throw .invalid(.mixpanel, "properties.time", "is not a number of seconds or milliseconds") }
        var millis = millisIfSeconds
        if millisIfSeconds >= 100_000_000_000_000 || millisIfSeconds <= -100_000_000_000_000 {
            guard let ms = RecordText.scaledDecimal(text, scale: 0) else {
                throw .invalid(.mixpanel, "properties.time", "is not a number of seconds or milliseconds")
            }
            millis = ms
        }
        return try work.timestamp(record, millis: millis, field: "properties.time")
    }

    /// userId, anonymousId and previousId, by the event's kind.
    private static func identities(_ record: Record, _ found: Found, _ kind: MixpanelEventKind, _ work: inout Workspace)
        throws(RecipeFailure)
    {
        let distinct = found[MixpanelField.distinctId]
        let device = found[MixpanelField.deviceId].map { Piece.id($0) } ?? .absent
        var userId = found[MixpanelField.userId].map { Piece.id($0) } ?? .absent
        var anonymousId = device
        if let distinct {
            let stripped = work.id(record, distinct, after: "$device:")
            if stripped.isPresent {
                if !anonymousId.isPresent { anonymousId = stripped }
            } else if !userId.isPresent {
                let sameAsDevice = found[MixpanelField.deviceId].map { RecordText.sameBytes(record.bytes, $0.range, distinct.range) } ?? false
                if sameAsDevice { anonymousId = .id(distinct) } else { userId = .id(distinct) }
            }
        }
        switch kind {
        case .identify:
            if let identified = found[MixpanelField.identifiedId], Piece.id(identified).isPresent { userId = .id(identified) }
            if let anon = found[MixpanelField.anonId] ?? found[MixpanelField.anonDistinctId], Piece.id(anon).isPresent {
                anonymousId = .id(anon)
            }
        case .createAlias:
            guard let alias = found[MixpanelField.alias], Piece.id(alias).isPresent else { throw .missing(.mixpanel, "properties.alias") }
            guard let distinct, Piece.id(distinct).isPresent else { throw .missing(.mixpanel, "properties.distinct_id") }
            work.plan.userId = .id(alias)
            work.plan.previousId = .id(distinct)
            return
        case .merge:
            guard let ids = found[MixpanelField.distinctIds], ids.kind == .array else {
                throw .missing(.mixpanel, "properties.$distinct_ids")
            }
            var items = ArrayItems(record.bytes, ids.range)
            guard let first = items.next(), let second = items.next(), Piece.id(first).isPresent, Piece.id(second).isPresent else {
                throw .invalid(.mixpanel, "properties.$distinct_ids", "does not hold two ids")
            }
            work.plan.previousId = .id(first)
            work.plan.userId = .id(second)
            return
        default: break
        }
        work.plan.userId = userId
        work.plan.anonymousId = anonymousId
        guard work.plan.hasIdentity else { throw .missing(.mixpanel, "properties.distinct_id") }
    }

    /// The properties that stay (everything the recipe does not read or move), copied as written.
    private static func remainingProperties(_ record: Record, _ kind: MixpanelEventKind, _ work: inout Workspace) -> Piece {
        let mark = work.open()
        let members = work.found.members
        let fields = work.found.fieldOfMember
        for (i, m) in members.enumerated() {
            let f = fields[i]
            if f >= 0, !MixpanelField(rawValue: Int(f))!.kept(on: kind) { continue }
            work.addVerbatim(m)
        }
        return work.close(mark)
    }
}
