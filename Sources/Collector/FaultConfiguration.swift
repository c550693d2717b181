/// A period, relative to server start, during which the collector is "down" and answers 503.
public struct DownWindow: Sendable, Equatable {
    /// When the window opens, measured from server start.
    public var start: Duration
    /// How long the window lasts.
    public var duration: Duration

    /// Creates a down window opening `start` after server start and lasting `duration`.
    public init(start: Duration, duration: Duration) {
        self.start = start
        self.duration = duration
    }

    /// Whether `elapsed` (time since server start) falls inside the window.
    public func contains(_ elapsed: Duration) -> Bool {
        elapsed >= start && elapsed < start + duration
    }
}

/// Seeded, reproducible fault injection. All rates are probabilities in `0...1`.
public struct FaultConfiguration: Sendable, Equatable {
    /// Seed of the random generator: the same seed and request order give the same faults.
    public var seed: UInt64
    /// Share of requests answered with `failureStatus`.
    public var failureRate: Double
    /// Status used for injected failures and for `failFirst`: 500, 502, 503 or 408.
    public var failureStatus: Int
    /// Share of requests answered 429 with a `Retry-After` header.
    public var throttleRate: Double
    /// The `Retry-After` value, in whole seconds, sent with injected 429s.
    public var retryAfter: Int
    /// Share of requests whose connection is reset (TCP RST) instead of answered.
    public var resetRate: Double
    /// Latency added before every ingestion response.
    public var latency: Duration
    /// A window in which every ingestion request gets 503.
    public var down: DownWindow?
    /// The first N ingestion requests fail with `failureStatus`.
    public var failFirst: Int
    /// A quota of accepted events a second (``EventRateLimit``): requests over it get 429 with
    /// `Retry-After: 1`. Nil: none.
    public var maxEventsPerSecond: Double?

    /// The statuses accepted for `failureStatus`.
    public static let allowedFailureStatuses: Set<Int> = [500, 502, 503, 408]

    /// Creates a fault configuration; the defaults inject nothing.
    public init(
        seed: UInt64 = 1,
        failureRate: Double = 0,
        failureStatus: Int = 500,
        throttleRate: Double = 0,
        retryAfter: Int = 1,
        resetRate: Double = 0,
        latency: Duration = .zero,
        down: DownWindow? = nil,
        failFirst: Int = 0,
        maxEventsPerSecond: Double? = nil
    ) {
        self.seed = seed
        self.failureRate = failureRate
        self.failureStatus = failureStatus
        self.throttleRate = throttleRate
        self.retryAfter = retryAfter
        self.resetRate = resetRate
        self.latency = latency
        self.down = down
        self.failFirst = failFirst
        self.maxEventsPerSecond = maxEventsPerSecond
    }

    /// No faults at all.
    public static let none = FaultConfiguration()
}
