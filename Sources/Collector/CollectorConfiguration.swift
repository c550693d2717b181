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
