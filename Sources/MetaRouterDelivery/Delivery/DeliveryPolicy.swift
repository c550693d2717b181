/// The engine-wide part of the delivery decision, shared by every lane: the circuit breaker, the
/// rate limiter, the current batch size and the retry budget. A plain value: the engine keeps one
/// and lends it (`inout`) to each ``BatchDelivery`` step, so lanes see each other's answers.
struct DeliveryPolicy: Sendable {
    /// The breaker around the endpoint.
    var breaker: CircuitBreaker
    /// Event and request rate limits, slowed down by 429s.
    var limiter: RateLimiter
    /// Events per batch now: halved by 413 answers, doubled back by 2xx up to ``maxBatchEvents``.
    var batchLimit: Int
    /// The configured events per batch (``DeliveryConfiguration/effectiveMaxBatchEvents``).
    let maxBatchEvents: Int
    /// Attempts per batch before the engine stops with `.retriesExhausted`.
    let maxAttempts: Int
    /// Time since a batch's first failure after which the engine stops with `.retriesExhausted`.
    let maxElapsed: Duration
    /// The shortest wait before retrying.
    let retryFloor: Duration
    /// Sends that had to wait for the rate limiter (a counter for the report).
    var rateLimitWaits = 0

    /// The policy of `configuration` at engine time `now`, with a closed breaker and full buckets.
    init(configuration: DeliveryConfiguration, now: Duration) {
        let lanes = max(configuration.concurrency, 1)
        breaker = CircuitBreaker(configuration: configuration.breaker)
        limiter = RateLimiter(
            eventsPerSecond: configuration.eventsPerSecond,
            requestsPerSecond: configuration.requestsPerSecond,
            unlimitedFallback: Double(lanes), now: now)
        maxBatchEvents = configuration.effectiveMaxBatchEvents
        batchLimit = maxBatchEvents
        maxAttempts = configuration.maxAttempts
        maxElapsed = configuration.maxElapsed
        retryFloor = configuration.retryFloor
    }
}
