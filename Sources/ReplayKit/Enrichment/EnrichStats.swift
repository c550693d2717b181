/// Counters of what enrichment did, for summaries and the run report.
public struct EnrichStats: Sendable, Equatable, Codable {
    /// Lines that became events.
    public var events = 0
    /// Empty or whitespace-only lines (skipped, not dead-lettered).
    public var blank = 0
    /// Dead-lettered lines by reason.
    public var deadLetters: [String: Int] = [:]
    /// Events settled without being sent, by ``SkipReason`` (`expired`, `consent_dropped`,
    /// `already_delivered`).
    public var skipped: [String: Int] = [:]
    /// Events whose anonymousId was derived from their userId.
    public var anonymousIdsDerived = 0
    /// Events whose `timestamp` was missing and whose `originalTimestamp` was used instead.
    public var originalTimestampsUsed = 0
    /// `context.device.advertisingId` values removed by the privacy rules.
    public var advertisingIdsRemoved = 0
    /// Keys removed from `properties` / `traits` / `context.traits` by `privacy.drop_properties`.
    public var propertiesDropped = 0
    /// Events that got the device anonymousId (lines with neither id).
    public var anonymousIdsFilled = 0
    /// Events that got a userId carried forward.
    public var userIdsCarried = 0
    /// Events that got a groupId carried forward.
    public var groupIdsCarried = 0
    /// Events that got a generated stable messageId.
    public var messageIdsGenerated = 0
    /// Events that got `timestamp` from `default_timestamp: now`.
    public var timestampsDefaulted = 0
    /// Captured `sentAt` members removed.
    public var sentAtDropped = 0
    /// Captured `writeKey` members removed (the engine stamps the configured key).
    public var writeKeysDropped = 0

    /// Creates zeroed counters.
    public init() {}

    /// All dead-lettered lines.
    public var invalid: Int { deadLetters.values.reduce(0, +) }
    /// All events settled by a rule.
    public var skippedTotal: Int { skipped.values.reduce(0, +) }
    /// All lines seen (events + invalid + blank + skipped).
    public var lines: Int { events + invalid + blank + skippedTotal }
}
