import JSONCore
@_spi(PerLine) import MetaRouter
@_spi(PerLine) import MetaRouterDelivery

/// What the rules learned about a line being prepared, and, once it is an event, what the
/// ``Enricher`` learns from it and counts (see ``LinePreparer/event``). Ids read from the line
/// refer to it, so the event must be finished while the line's buffer is valid.
struct PreparedEvent {
    /// The event's type.
    var type: EventType
    /// A group event's groupId.
    var groupIdOfGroup: IdRef?
    /// The event's time (epoch ms).
    var millis: Int64 = 0
    /// The event's anonymousId (its own, derived from its userId, or the device's): its lane
    /// and shard key.
    var anonymousId: IdRef = .inLine(0..<0)
    /// The event's own userId, if it has one.
    var ownUserId: IdRef?
    /// Whether the line writes `userId` as a string (even empty): then nothing is carried over it.
    var userIdIsString = false
    /// The userId carried in from an earlier line, if any.
    var carriedUserId: IdentityValue?
    /// An alias event's `previousId` and the group it moves to the alias's `userId` (see
    /// ``AliasTransition``); nil for other events.
    var alias: AliasTransition?
    /// Whether the event is one of `enrichment.identity.logout_events`: it ends carry-forward
    /// for its anonymousId (after itself).
    var isLogout = false
    /// Whether the anonymousId is an identity the store learns for: the line's own (not a
    /// placeholder) or the device's, never one derived from the userId.
    var anonymousIdCarries = false
}

/// What enrichment did to one line; added to ``EnrichStats`` when the line is finished.
struct LineCounts {
    var timestampDefaulted = false
    var sentAtDropped = false
    var writeKeyDropped = false
    var anonymousIdFilled = false
    var anonymousIdDerived = false
    var originalTimestampUsed = false
    var messageIdGenerated = false
    var userIdCarried = false
    var groupIdCarried = false
    var propertiesDropped = 0
    var advertisingIdsRemoved = 0
}

extension EnrichStats {
    /// Adds one finished event's counts.
    mutating func add(_ c: LineCounts) {
        events += 1
        if c.timestampDefaulted { timestampsDefaulted += 1 }
        if c.sentAtDropped { sentAtDropped += 1 }
        if c.writeKeyDropped { writeKeysDropped += 1 }
        if c.anonymousIdFilled { anonymousIdsFilled += 1 }
        if c.anonymousIdDerived { anonymousIdsDerived += 1 }
        if c.originalTimestampUsed { originalTimestampsUsed += 1 }
        if c.messageIdGenerated { messageIdsGenerated += 1 }
        if c.userIdCarried { userIdsCarried += 1 }
        if c.groupIdCarried { groupIdsCarried += 1 }
        propertiesDropped += c.propertiesDropped
        advertisingIdsRemoved += c.advertisingIdsRemoved
    }
}
