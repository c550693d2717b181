import IngestionChecks

/// Where the collector keeps accepted events.
public enum CollectorStore: Sendable, Equatable {
    /// Keep nothing (events are still counted).
    case none
    /// Append each accepted event as one line to an NDJSON file at this path.
    case ndjson(String)
    /// Insert each accepted event into an embedded SQLite database at this path.
    case sqlite(String)

    /// Picks the store from a file name: `.sqlite`, `.sqlite3` and `.db` mean SQLite, anything else NDJSON.
    public static func forPath(_ path: String) -> CollectorStore {
        let lower = path.lowercased()
        if lower.hasSuffix(".sqlite") || lower.hasSuffix(".sqlite3") || lower.hasSuffix(".db") {
            return .sqlite(path)
        }
        return .ndjson(path)
    }
}

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
        failFirst: Int = 0
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
    }

    /// No faults at all.
    public static let none = FaultConfiguration()
}

/// Everything that shapes one collector instance.
public struct CollectorConfiguration: Sendable, Equatable {
    /// Interface to bind, by default loopback.
    public var host: String
    /// Port to bind; 0 picks a free port.
    public var port: Int
    /// The write key that requests must authenticate with.
    public var writeKey: String
    /// Path prefix in front of `/v1/batch` and `/stats`, e.g. `/collector` (empty for none).
    public var basePath: String
    /// Where accepted events go.
    public var store: CollectorStore
    /// Answer a whole request with 400 when any event in it is invalid (default: drop and count it).
    public var strict: Bool
    /// Status for bodies, events or batches over Segment's limits: 400 (default) or 413.
    public var oversizeStatus: Int
    /// Fault injection.
    public var faults: FaultConfiguration
    /// The NDJSON file for `POST {base}/simpleanalytics` payloads; nil: next to `store`
    /// (see ``simpleAnalyticsStorePath``).
    public var simpleAnalyticsStore: String?
    /// Whether `POST {base}/simpleanalytics` is served at all (false: it answers 404 and no
    /// SimpleAnalytics file is created, as for mr-replay's embedded collector).
    public var servesSimpleAnalytics = true
    /// Serve HTTPS with this certificate (and, optionally, require client certificates); `nil`: plain HTTP.
    public var tls: CollectorTLS?

    /// Creates a configuration. Only `writeKey` is required.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        writeKey: String,
        basePath: String = "",
        store: CollectorStore = .none,
        strict: Bool = false,
        oversizeStatus: Int = 400,
        faults: FaultConfiguration = .none,
        tls: CollectorTLS? = nil
    ) {
        self.host = host
        self.port = port
        self.writeKey = writeKey
        self.basePath = basePath
        self.store = store
        self.strict = strict
        self.oversizeStatus = oversizeStatus
        self.faults = faults
        self.tls = tls
    }
}

/// Segment's documented ingestion limits, as both of the package's servers apply them.
public enum IngestionLimits {
    /// Largest request body after decompression, in bytes.
    public static let maxBodyBytes = SegmentLimits.maxBodyBytes
    /// Largest single event, in bytes.
    public static let maxEventBytes = SegmentLimits.maxEventBytes
    /// Most events in one batch.
    public static let maxBatchEvents = SegmentLimits.maxBatchEvents
}
