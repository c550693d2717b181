import SegmentAPI

/// Settings of the circuit breaker around the endpoint.
public struct BreakerConfiguration: Sendable, Equatable {
    /// Consecutive retryable failures that open the breaker.
    public var failureThreshold = 3
    /// The first cooldown after opening.
    public var cooldown: Duration = .seconds(10)
    /// The cooldown doubles each time a half-open probe fails, up to this.
    public var maxCooldown: Duration = .seconds(120)
    /// Relative jitter applied to each cooldown (0.2 = ±20%).
    public var jitter = 0.2
    /// Requests allowed while half-open.
    public var halfOpenMaxConcurrent = 1

    /// Creates the SDK defaults (3 failures, 10 s doubling up to 120 s, ±20%, one probe).
    public init() {}
}

/// Everything the delivery engine needs to know about the endpoint and its limits.
public struct DeliveryConfiguration: Sendable {
    /// Base URL, for example `https://ingest.example.com` or `http://127.0.0.1:8080/base`; a path in it is kept.
    public var host: String
    /// Appended to ``host``.
    public var path: String = "/v1/batch"
    /// The source's write key: sent as Basic auth and spliced into each event.
    public var writeKey: String
    /// Events per request (clamped to 1...2500, Segment's limit).
    public var maxBatchEvents = 100
    /// Bytes per request, measured on the whole uncompressed body (envelope and `sentAt` included).
    public var maxBatchBytes = SegmentLimits.maxBodyBytes
    /// Bytes per event as sent (with `sentAt`/`writeKey` spliced); larger events are given up as `too_large`.
    public var maxEventBytes = SegmentLimits.maxEventBytes
    /// Batches in flight (one per lane).
    public var concurrency = 4
    /// Gzip request bodies.
    public var gzip = false
    /// Send `Trace: true`.
    public var tracing = false
    /// The `User-Agent` of every request, when set (mr-replay sends `mr-replay/<version>`, so
    /// the destination can tell replayed traffic apart without touching `context.library`).
    public var userAgent: String?
    /// Per-request timeout handed to the transport.
    public var requestTimeout: Duration = .seconds(15)
    /// Plain `http` is allowed only to loopback hosts unless this is true.
    public var allowInsecureHTTP = false
    /// Event rate limit (0 = unlimited).
    public var eventsPerSecond: Double = 0
    /// Request rate limit (0 = unlimited).
    public var requestsPerSecond: Double = 0
    /// Attempts per batch before the engine stops with `.retriesExhausted`.
    public var maxAttempts = 10
    /// Time since a batch's first failure after which the engine stops with `.retriesExhausted`.
    public var maxElapsed: Duration = .seconds(3600)
    /// The shortest wait before retrying a failed batch.
    public var retryFloor: Duration = .seconds(1)
    /// The circuit breaker's settings.
    public var breaker = BreakerConfiguration()
    /// `submit` suspends while this many events are unsettled (backpressure, bounded memory).
    public var maxPendingEvents = 10_000

    /// Creates a configuration with the defaults above.
    public init(host: String, writeKey: String) {
        self.host = host
        self.writeKey = writeKey
    }

    /// ``maxBatchEvents`` clamped to 1...2500.
    public var effectiveMaxBatchEvents: Int { min(max(maxBatchEvents, 1), SegmentLimits.maxBatchEvents) }

    /// The full endpoint URL: ``host`` (without a trailing `/`) followed by ``path``.
    public var endpointURL: String {
        var base = host
        while base.hasSuffix("/") { base.removeLast() }
        let p = path.hasPrefix("/") || path.isEmpty ? path : "/" + path
        return base + p
    }

    /// The allowed range of ``maxBatchEvents``.
    public static let batchEventsRange = 1...SegmentLimits.maxBatchEvents
    /// The allowed range of ``concurrency``.
    public static let concurrencyRange = 1...256

    /// The smallest ``maxBatchBytes`` that holds one event of `maxEventBytes` with the envelope.
    public static func smallestBatchBytes(forEventsOf maxEventBytes: Int) -> Int {
        BatchEncoder.bodySize(eventSizes: maxEventBytes, count: 1)
    }

    /// Checks every setting; the error names the bad one.
    public func validate() throws(DeliveryConfigurationError) {
        try EndpointCheck.check(host: host, allowInsecureHTTP: allowInsecureHTTP)
        if writeKey.isEmpty { throw .init(setting: "writeKey", "must not be empty") }
        if !Self.batchEventsRange.contains(maxBatchEvents) {
            throw .init(setting: "maxBatchEvents", "must be in \(Self.batchEventsRange), got \(maxBatchEvents)")
        }
        if maxEventBytes < 2 { throw .init(setting: "maxEventBytes", "must be at least 2, got \(maxEventBytes)") }
        let smallest = Self.smallestBatchBytes(forEventsOf: maxEventBytes)
        if maxBatchBytes < smallest {
            throw .init(
                setting: "maxBatchBytes",
                "must hold one event of maxEventBytes with its envelope (at least \(smallest)), got \(maxBatchBytes)")
        }
        if !Self.concurrencyRange.contains(concurrency) {
            throw .init(setting: "concurrency", "must be in \(Self.concurrencyRange), got \(concurrency)")
        }
        if requestTimeout <= .zero { throw .init(setting: "requestTimeout", "must be positive") }
        if !(eventsPerSecond >= 0) || !eventsPerSecond.isFinite {
            throw .init(setting: "eventsPerSecond", "must be a finite number >= 0 (0 = unlimited)")
        }
        if !(requestsPerSecond >= 0) || !requestsPerSecond.isFinite {
            throw .init(setting: "requestsPerSecond", "must be a finite number >= 0 (0 = unlimited)")
        }
        if maxAttempts < 1 { throw .init(setting: "maxAttempts", "must be at least 1, got \(maxAttempts)") }
        if maxElapsed <= .zero { throw .init(setting: "maxElapsed", "must be positive") }
        if retryFloor < .zero { throw .init(setting: "retryFloor", "must not be negative") }
        if breaker.failureThreshold < 1 { throw .init(setting: "breaker.failureThreshold", "must be at least 1") }
        if breaker.cooldown < .zero || breaker.maxCooldown < breaker.cooldown {
            throw .init(setting: "breaker.cooldown", "must be >= 0 and <= breaker.maxCooldown")
        }
        if !(breaker.jitter >= 0 && breaker.jitter < 1) {
            throw .init(setting: "breaker.jitter", "must be in 0..<1, got \(breaker.jitter)")
        }
        if breaker.halfOpenMaxConcurrent < 1 { throw .init(setting: "breaker.halfOpenMaxConcurrent", "must be at least 1") }
        if maxPendingEvents < 1 { throw .init(setting: "maxPendingEvents", "must be at least 1") }
    }
}

/// A setting of ``DeliveryConfiguration`` that cannot work.
public struct DeliveryConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The setting's name, as in ``DeliveryConfiguration``.
    public var setting: String
    /// What is wrong with it.
    public var message: String

    /// Creates an error about `setting`.
    public init(setting: String, _ message: String) {
        self.setting = setting
        self.message = message
    }

    public var description: String { "invalid delivery setting \(setting): \(message)" }
}
