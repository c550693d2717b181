/// Counters of a ``MetaRouterClient``.
public struct ClientStats: Sendable, Equatable {
    /// Events waiting in the client, not yet handed to the engine.
    public var queued = 0
    /// Events in the engine without an outcome yet.
    public var inFlight = 0
    /// Events the endpoint accepted.
    public var delivered = 0
    /// Events the engine gave up on (`too_large`, `rejected_<status>`), by reason.
    public var givenUp: [String: Int] = [:]
    /// Events the engine could not deliver because it stopped; kept for the snapshot.
    public var notDelivered = 0
    /// Events dropped because the client queue was full (oldest first), or the hold overflow
    /// file was at `maxDiskEvents`.
    public var droppedQueueFull = 0
    /// Calls dropped because the client was disabled (fatal 401/403/404) or shut down.
    public var droppedDisabled = 0
    /// Events loaded from the snapshot at start.
    public var rehydrated = 0
    /// Snapshot entries skipped at start because they were not valid events.
    public var snapshotCorrupt = 0
    /// Snapshot events dropped at start by the age cap (`diskQueueMaxAge`).
    public var snapshotExpired = 0
    /// Snapshots that could not be read (another version, or damaged beyond finding one) and
    /// were moved aside to `<diskQueuePath>.unreadable-<millis>` instead of being overwritten.
    public var snapshotsSetAside = 0
    /// Events dropped because they could not be encoded (for example nested too deep).
    public var droppedUnencodable = 0

    /// Calls dropped because data usage is revoked under GDPR (``Consent``).
    public var droppedByConsent = 0
    /// Pending events purged when data usage was revoked: queued in memory, in the hold overflow
    /// file, in the unread snapshot, or waiting in the engine (not yet in a request).
    public var purgedByConsent = 0
    /// Events that were held because the ATT status was not determined yet
    /// (`waitForTrackingAuthorization`); they are sent once it is.
    public var heldForTracking = 0
    /// Events moved from memory to the hold overflow file while held.
    public var spilledToDisk = 0
    /// Held events in the hold overflow file now (``queued`` counts those in memory).
    public var queuedOnDisk = 0

    /// Creates zeroed counters.
    public init() {}
}
