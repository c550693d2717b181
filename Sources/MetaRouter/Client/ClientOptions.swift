/// Where ``MetaRouterClient`` keeps the persisted identity (anonymousId, userId, groupId, advertisingId).
public enum IdentityStorage: Sendable {
    /// Kept in memory only: a new anonymousId per client instance.
    case inMemory
    /// Kept in `identity.json` inside this directory (created on first write).
    case directory(String)
    /// Kept in the given store.
    case custom(any KeyValueStorage)

    /// Opens the store.
    func open() throws -> any KeyValueStorage {
        switch self {
        case .inMemory: return InMemoryKeyValueStorage()
        case .directory(let dir):
            var base = dir
            while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
            return try FileKeyValueStorage(path: base + "/identity.json")
        case .custom(let storage): return storage
        }
    }
}

/// Settings of a ``MetaRouterClient``: the endpoint and delivery knobs, flushing, queueing,
/// identity storage, context and the offline snapshot.
public struct ClientOptions: Sendable {
    /// Endpoint, write key, batching, retries, breaker, rate limits (see ``DeliveryConfiguration``).
    public var delivery: DeliveryConfiguration
    /// How often queued events are sent even when no batch is full.
    public var flushInterval: Duration = .seconds(10)
    /// Events buffered in the client before they enter the engine; when full, the oldest is dropped.
    public var maxQueueEvents = 2000
    /// Where the identity is persisted.
    public var identityStorage: IdentityStorage = .inMemory
    /// Static context added to every event (`library`, `app`, `device`, `os`, `locale`, `timezone`).
    public var context = ContextInfo()
    /// Path of the offline snapshot (`queue.v1.json`): undelivered events are written there by
    /// ``MetaRouterClient/shutdown()`` and sent again by the next client. `nil`: no snapshot.
    public var diskQueuePath: String?
    /// Snapshot events older than this are dropped when loading (`nil` keeps all); the SDK uses 7 days.
    public var diskQueueMaxAge: Duration? = DiskQueue.sevenDays
    /// How long ``MetaRouterClient/shutdown()`` tries to deliver before it cancels the engine.
    public var shutdownTimeout: Duration = .seconds(10)
    /// `false`: the client opens no connection and sends nothing until ``MetaRouterClient/start()``
    /// (calls are queued and held meanwhile). For a consent banner that must come first (FunnelMob).
    public var autoStart = true
    /// `true`: events are held, not sent, until ``MetaRouterClient/setTrackingAuthorization(_:)``
    /// gives a determined ATT status (Trackier, FunnelMob). There is no timeout.
    public var waitForTrackingAuthorization = false
    /// The consent decision at creation (`nil`: none yet, the client sends normally); see
    /// ``MetaRouterClient/setConsent(_:)``.
    public var consent: Consent?
    /// The ATT status at creation (`nil`: ATT not in use, the advertising id is sent as set).
    public var trackingAuthorization: TrackingAuthorizationStatus?
    /// Most events the hold overflow file keeps (`overflow.v1.json` beside `diskQueuePath`) while
    /// events are held (not started, or waiting for ATT) and memory is full; the oldest are
    /// dropped beyond it. 0 disables the overflow (the oldest in memory are dropped instead).
    public var maxDiskEvents = 10_000
    /// TLS trust, client certificate and proxy of the HTTP transport the client owns (when
    /// ``MetaRouterClient/init(options:transport:eventLoopGroup:clock:logger:)`` gets no transport);
    /// its files are checked by ``validate()``.
    public var security = TransportSecurity()

    /// Options for `writeKey` at `ingestionHost`, with the defaults above and the engine's defaults.
    public init(writeKey: String, ingestionHost: String) {
        delivery = DeliveryConfiguration(host: ingestionHost, writeKey: writeKey)
    }

    /// The source's write key.
    public var writeKey: String {
        get { delivery.writeKey }
        set { delivery.writeKey = newValue }
    }

    /// The ingestion host, for example `https://ingest.example.com`.
    public var ingestionHost: String {
        get { delivery.host }
        set { delivery.host = newValue }
    }

    /// The batch path appended to the host (default `/v1/batch`).
    public var path: String {
        get { delivery.path }
        set { delivery.path = newValue }
    }

    /// Checks every setting; throws ``DeliveryConfigurationError`` naming the bad one.
    public func validate() throws(DeliveryConfigurationError) {
        try delivery.validate()
        try security.check()
        if flushInterval <= .zero { throw .init(setting: "flushInterval", "must be positive") }
        if maxQueueEvents < 1 { throw .init(setting: "maxQueueEvents", "must be at least 1, got \(maxQueueEvents)") }
        if maxDiskEvents < 0 { throw .init(setting: "maxDiskEvents", "must not be negative, got \(maxDiskEvents)") }
        if shutdownTimeout < .zero { throw .init(setting: "shutdownTimeout", "must not be negative") }
    }
}
