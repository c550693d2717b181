import JSONCore

/// The whole `mr-replay` configuration, typed. Load it with ``ConfigLoader``.
///
/// The write key is held privately: `description`, `debugDescription` and reflection show only
/// ``maskedWriteKey``. Read ``writeKey`` only to put it on the wire.
public struct ReplayConfig: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Where events go and how.
    public var ingestion: Ingestion
    /// Batch sizes and parallelism.
    public var batching: Batching
    /// Rate limits (0 = unlimited).
    public var rateLimit: RateLimit
    /// Retries and the circuit breaker.
    public var retry: Retry
    /// How events are completed before sending.
    public var enrichment: Enrichment
    /// Privacy rules applied to every event.
    public var privacy: Privacy
    /// Directory for state: identity database, dead letters, checkpoints.
    public var stateDir: String
    /// The file this configuration was read from, if any.
    public var sourcePath: String?

    /// Fixed write key used with host `embedded` when none is configured.
    public static let embeddedWriteKey = "mr-replay-local"

    /// The built-in defaults (host `embedded`), identical to the shipped `Config/replay.yaml`.
    public static var defaults: ReplayConfig {
        ReplayConfig(
            ingestion: Ingestion(), batching: Batching(), rateLimit: RateLimit(), retry: Retry(),
            enrichment: Enrichment(), privacy: Privacy(), stateDir: ".mr-replay", sourcePath: nil)
    }

    /// The write key, to be sent as credentials. Never print it; use ``maskedWriteKey``.
    public var writeKey: String { ingestion.secretWriteKey.value }

    /// The write key reduced to its last 4 characters, e.g. `****c0de`.
    public var maskedWriteKey: String { ingestion.secretWriteKey.masked }

    /// Replaces the write key (for tests and programmatic configuration).
    public mutating func setWriteKey(_ key: String) { ingestion.secretWriteKey = Secret(key) }

    /// A summary without secrets.
    public var description: String {
        "ReplayConfig(host: \(ingestion.host), path: \(ingestion.path), writeKey: \(maskedWriteKey), "
            + "gzip: \(ingestion.gzip), maxEvents: \(batching.maxEvents), concurrency: \(batching.concurrency), "
            + "stateDir: \(stateDir))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Reflection shows the masked key only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }

    /// `ingestion:` section.
    public struct Ingestion: Sendable {
        /// `embedded` (start an in-process collector) or a base URL such as `https://ingest.example.com`.
        public var host: String = "embedded"
        /// The write key (private; see ``ReplayConfig/writeKey``).
        var secretWriteKey = Secret("")
        /// Request path appended to the host.
        public var path: String = "/v1/batch"
        /// Gzip request bodies.
        public var gzip: Bool = false
        /// Send the `Trace: true` header.
        public var tracing: Bool = false
        /// Per-request timeout.
        public var timeoutSeconds: Double = 15
        /// Allow plain `http://` to a host that is not loopback.
        public var allowInsecureHTTP: Bool = false
        /// Whether the host is the in-process collector.
        public var isEmbedded: Bool { host == "embedded" }
        /// Creates the defaults.
        public init() {}
    }

    /// `batching:` section.
    public struct Batching: Sendable {
        /// Most events in one request.
        public var maxEvents: Int = 100
        /// Most bytes in one request body.
        public var maxBytes: Int = 500_000
        /// Longest accepted event line; longer lines are dead-lettered `too_large`.
        public var maxEventBytes: Int = 32_768
        /// Requests in flight at once.
        public var concurrency: Int = 4
        /// Creates the defaults.
        public init() {}
    }

    /// `rate_limit:` section (0 = unlimited).
    public struct RateLimit: Sendable {
        /// Events per second.
        public var eventsPerSecond: Double = 0
        /// Requests per second.
        public var requestsPerSecond: Double = 0
        /// Creates the defaults.
        public init() {}
    }

    /// `retry.circuit_breaker:` section.
    public struct CircuitBreaker: Sendable {
        /// Consecutive failures that open the breaker.
        public var failureThreshold: Int = 3
        /// First cooldown.
        public var cooldownMs: Int = 10_000
        /// Longest cooldown after repeated opening.
        public var maxCooldownMs: Int = 120_000
        /// Random spread of cooldowns, 0...1.
        public var jitter: Double = 0.2
        /// Creates the defaults.
        public init() {}
    }

    /// `retry:` section.
    public struct Retry: Sendable {
        /// Attempts per batch before giving up.
        public var maxAttempts: Int = 10
        /// Time budget per batch before giving up.
        public var maxElapsedSeconds: Double = 3600
        /// `min_wait_ms`: the retry floor, the shortest wait before any retry (the SDK's 1000 ms).
        public var minWaitMs: Int = 1000
        /// The circuit breaker.
        public var circuitBreaker = CircuitBreaker()
        /// Creates the defaults.
        public init() {}
    }

    /// `enrichment:` section.
    public struct Enrichment: Sendable {
        /// What to do with an event without `timestamp`.
        public enum DefaultTimestamp: String, Sendable {
            /// Dead-letter it as `missing_timestamp`.
            case none
            /// Use the time of the replay.
            case now
        }
        /// What to do with an event without `timestamp`.
        public var defaultTimestamp: DefaultTimestamp = .none
        /// Context members filled in where the event lacks them.
        public var context = ContextDefaults()
        /// Creates the defaults.
        public init() {}
    }

    /// `enrichment.context:` — values used only where the event has none.
    public struct ContextDefaults: Sendable {
        /// `context.app` members.
        public var app: JSONObject?
        /// `context.device` members.
        public var device: JSONObject?
        /// `context.os` members.
        public var os: JSONObject?
        /// `context.locale`.
        public var locale: String?
        /// `context.timezone`.
        public var timezone: String?
        /// Creates empty defaults.
        public init() {}
    }

    /// `privacy:` section.
    public struct Privacy: Sendable {
        /// Keys removed from `properties`, `traits` and `context.traits`.
        public var dropProperties: [String] = []
        /// Creates the defaults.
        public init() {}
    }
}

/// A secret string whose descriptions never show it.
struct Secret: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: String
    init(_ value: String) { self.value = value }
    /// `****` plus the last 4 characters (only `****` for keys of 4 characters or fewer).
    var masked: String {
        value.count > 4 ? "****" + String(value.suffix(4)) : "****"
    }
    var description: String { masked }
    var debugDescription: String { masked }
}
