import JSONCore
@_spi(PerLine) import MetaRouter
@_spi(PerLine) import MetaRouterDelivery

/// What one line teaches the identity store, as the line writes it: the record a partition
/// keeps of every `identify`, `alias`, `group` and logout line that becomes an event, so that
/// every shard of a partitioned run learns what an unsharded run learns, in the same order,
/// without reading other shards' lines.
///
/// The partition stage holds no identities, so it records the ids as written
/// (``LinePreparer/prepareToLearn(_:identity:)`` without a store). What a line looks up before
/// it teaches (a `group` line's carried userId, an `alias`'s moved group) is resolved when a
/// shard learns the record, from its store as it stands at that line, exactly as preparing the
/// line resolves it; then ``Enricher/learn(from:sequence:line:)`` learns it, the one
/// implementation of what a line teaches.
enum IdentityTransition {
    /// What kind of line taught it.
    enum Kind: UInt8 {
        case identify = 1
        case alias = 2
        case group = 3
        case logout = 4
    }

    static let carriesFlag: UInt8 = 1
    static let userIdIsStringFlag: UInt8 = 2
    /// The event's index in its record follows the flags (absent: 0).
    static let eventIndexFlag: UInt8 = 4

    /// The kind of transition `e` is, or nil when its line teaches nothing.
    static func kind(of e: PreparedEvent) -> Kind? {
        switch e.type {
        case .identify: e.ownUserId == nil ? nil : .identify
        case .alias: e.ownUserId == nil || e.alias == nil ? nil : .alias
        case .group: e.groupIdOfGroup == nil ? nil : .group
        case .track: e.isLogout && e.anonymousIdCarries ? .logout : nil
        case .page, .screen: nil
        }
    }

    /// Appends the record of `e` (prepared from `line` without a store), if its line teaches
    /// anything; returns whether it did.
    @discardableResult
    static func append(
        _ e: PreparedEvent, line: UnsafeBufferPointer<UInt8>, lineNumber: Int, eventIndex: Int = 0, to out: inout [UInt8]
    ) -> Bool {
        guard let kind = kind(of: e) else { return false }
        out.append(PartitionRecord.transition)
        PartitionRecord.appendVarint(UInt64(lineNumber), to: &out)
        out.append(kind.rawValue)
        let flags = (e.anonymousIdCarries ? carriesFlag : 0) | (e.userIdIsString ? userIdIsStringFlag : 0)
        out.append(flags | (eventIndex > 0 ? eventIndexFlag : 0))
        if eventIndex > 0 { PartitionRecord.appendVarint(UInt64(eventIndex), to: &out) }
        let empty = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        func append(_ id: IdRef?) {
            guard let id else { return PartitionRecord.appendBytes(empty, to: &out) }
            id.withBytes(line) { PartitionRecord.appendBytes($0, to: &out) }
        }
        append(e.anonymousIdCarries ? e.anonymousId : nil)
        append(e.ownUserId)
        append(e.alias?.previousId)
        append(e.groupIdOfGroup)
        return true
    }

    /// Reads a transition record and lets `enricher` learn it as line `sequence`. Returns the
    /// record's line number.
    static func learn(
        from reader: inout PartitionRecordReader, enricher: Enricher, sequence: UInt64
    ) throws -> Int {
        guard try reader.tag() == PartitionRecord.transition else { throw PartitionDamage.unknownRecord }
        let lineNumber = Int(try reader.varint())
        guard let kind = Kind(rawValue: try reader.tag()) else { throw PartitionDamage.unknownRecord }
        let flags = try reader.tag()
        if flags & eventIndexFlag != 0 { _ = try reader.varint() }
        let anonymousId = try reader.field(), userId = try reader.field()
        let previousId = try reader.field(), groupId = try reader.field()
        let identity = enricher.identity
        func ref(_ bytes: UnsafeBufferPointer<UInt8>) -> IdRef? { bytes.isEmpty ? nil : .external(bytes) }
        var e = PreparedEvent(type: kind.eventType)
        e.anonymousIdCarries = flags & carriesFlag != 0
        e.userIdIsString = flags & userIdIsStringFlag != 0
        e.anonymousId = ref(anonymousId) ?? .external(anonymousId)
        e.ownUserId = ref(userId)
        e.isLogout = kind == .logout
        e.groupIdOfGroup = ref(groupId)
        // What preparing the line looks up before it teaches (see `carriedIdentityRules`): a
        // group line without a userId of its own (none written as a string) carries its
        // anonymousId's user; an alias moves the previous identity's group.
        if kind == .group, e.ownUserId == nil, e.anonymousIdCarries, !e.userIdIsString {
            e.carriedUserId = try identity.userIdValue(forAnonymousId: anonymousId)
        }
        if kind == .alias, let user = e.ownUserId, let previous = ref(previousId) {
            e.alias = try AliasTransition.make(previousId: previous, userId: user, anonymousId, identity)
        }
        enricher.learn(from: e, sequence: sequence, line: anonymousId)
        return lineNumber
    }
}

extension IdentityTransition.Kind {
    /// The event type of the line.
    var eventType: EventType {
        switch self {
        case .identify: .identify
        case .alias: .alias
        case .group: .group
        case .logout: .track
        }
    }
}
