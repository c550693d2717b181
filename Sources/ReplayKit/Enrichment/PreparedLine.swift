import JSONCore

/// One line after the order-independent part of enrichment (see ``LinePreparer``), waiting for
/// ``Enricher/finish(_:sequence:)`` to apply identity carry-forward in read order.
enum PreparedLine {
    case blank
    case deadLetter(reason: String, detail: String)
    case event(PreparedEvent)
}

/// An event that is valid and enriched except, possibly, for carried identities.
struct PreparedEvent {
    /// The rendered event.
    var bytes: [UInt8]
    var messageId: String
    /// The event's anonymousId (its own, or the device's).
    var anonymousId: String
    /// The event's own userId, if it has one.
    var ownUserId: String?
    /// The userId already carried in (prepared in read order), if any.
    var carriedUserId: String?
    /// A group event's groupId.
    var groupIdOfGroup: String?
    var type: EventType
    /// Where a carried userId goes; nil when none can be carried (or it was done already).
    var userIdMark: RenderedMark?
    /// Where a carried groupId goes; nil when none can be carried (or it was done already).
    var groupIdMark: RenderedMark?
    /// What preparing did to this line.
    var counts: LineCounts
}

/// What enrichment did to one line; added to ``EnrichStats`` when the line is finished.
struct LineCounts {
    var timestampDefaulted = false
    var sentAtDropped = false
    var anonymousIdFilled = false
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
        if c.anonymousIdFilled { anonymousIdsFilled += 1 }
        if c.messageIdGenerated { messageIdsGenerated += 1 }
        if c.userIdCarried { userIdsCarried += 1 }
        if c.groupIdCarried { groupIdsCarried += 1 }
        propertiesDropped += c.propertiesDropped
        advertisingIdsRemoved += c.advertisingIdsRemoved
    }
}
