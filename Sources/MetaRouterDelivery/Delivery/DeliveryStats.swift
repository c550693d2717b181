/// Counters of one engine run, for the report.
public struct DeliveryStats: Sendable, Codable, Equatable {
    /// Events accepted by `submit`.
    public var eventsSubmitted = 0
    /// Events the endpoint accepted.
    public var eventsDelivered = 0
    /// Events settled without delivery (dead-lettered by the caller).
    public var eventsGivenUp = 0
    /// Events left unsettled because the engine stopped.
    public var eventsNotDelivered = 0
    /// Events taken back before they were sent (a consent purge of ``MetaRouterClient``). Once
    /// the engine is done, `eventsSubmitted` = delivered + given up + not delivered + withdrawn.
    public var eventsWithdrawn = 0
    /// Given-up events by reason (`too_large`, `rejected_400`, ...).
    public var givenUpReasons: [String: Int] = [:]
    /// HTTP attempts.
    public var batchesSent = 0
    /// Attempts answered 2xx.
    public var batchesSucceeded = 0
    /// Attempts that failed retryably and were scheduled again.
    public var batchesRetried = 0
    /// Batches split (413 halving or 4xx bisection).
    public var batchesSplit = 0
    /// Responses by status code as a string, or `network_error`.
    public var responses: [String: Int] = [:]
    /// Times the circuit breaker opened.
    public var breakerOpened = 0
    /// Retries whose wait was set by a `Retry-After` header.
    public var retryAfterHonored = 0
    /// Sends that had to wait for the rate limiter.
    public var rateLimitWaits = 0

    /// Creates zeroed counters.
    public init() {}
}
