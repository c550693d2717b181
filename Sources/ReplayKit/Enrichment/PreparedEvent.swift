import JSONCore
@_spi(PerLine) import MetaRouter

/// An enriched event, waiting for ``Enricher/finish(_:sequence:line:)`` to learn from it and
/// count it, and what the identity store may learn from it. Ids read from the line
/// refer to it, so the event must be finished while the line's buffer is valid.
struct PreparedEvent {
    /// Where the rendered event sits in the output buffer.
    var range: Range<Int>
    /// The event's anonymousId (its own, derived from its userId, or the device's): its lane
    /// and shard key.
    var anonymousId: IdRef
    /// The event's own userId, if it has one.
    var ownUserId: IdRef?
    /// The userId carried in from an earlier line, if any.
    var carriedUserId: IdentityValue?
    /// A group event's groupId.
    var groupIdOfGroup: IdRef?
    /// An alias event's `previousId` and the group it moves to the alias's `userId` (see
    /// ``AliasTransition``); nil for other events.
    var alias: AliasTransition?
    /// Whether the event is one of `enrichment.identity.logout_events`: it ends carry-forward
    /// for its anonymousId (after itself).
    var isLogout: Bool
    /// Whether the anonymousId is an identity the store learns for: the line's own (not a
    /// placeholder) or the device's, never one derived from the userId.
    var anonymousIdCarries: Bool
    /// The event's type.
    var type: EventType
    /// What preparing did to this line.
    var counts: LineCounts
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
