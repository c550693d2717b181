/// Counters of what enrichment did, for summaries and the run report.
public struct EnrichStats: Sendable, Equatable, Codable {
    /// Lines that became events.
    public var events = 0
    /// Empty or whitespace-only lines (skipped, not dead-lettered).
    public var blank = 0
    /// Dead-lettered lines by reason (includes `consent_denied`).
    public var deadLetters: [String: Int] = [:]
    /// `context.device.advertisingId` values removed by the privacy rules.
    public var advertisingIdsRemoved = 0
    /// Keys removed from `properties` / `traits` / `context.traits` by `privacy.drop_properties`.
    public var propertiesDropped = 0
    /// Events that got the device anonymousId.
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
    /// All lines seen (events + invalid + blank).
    public var lines: Int { events + invalid + blank }
}
