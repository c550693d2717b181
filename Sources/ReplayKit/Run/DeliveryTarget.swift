import Collector
import Foundation
import Logging
import MetaRouter

/// Where a run sends its events: a remote endpoint, or the embedded collector started in
/// process on a loopback port (host `embedded`), which writes to `<state_dir>/collected.ndjson`.
final class DeliveryTarget: Sendable {
    let host: String
    let transport: HTTPDeliveryTransport
    let embedded: CollectorServer?
    let description: String

    private init(host: String, transport: HTTPDeliveryTransport, embedded: CollectorServer?, description: String) {
        self.host = host
        self.transport = transport
        self.embedded = embedded
        self.description = description
    }

    /// The keyword that selects the embedded collector.
    static let embeddedKeyword = "embedded"

    /// Starts the target named by the config.
    static func start(config: ReplayConfig, stateDirectory: String, logger: Logger) async throws -> DeliveryTarget {
        let transport = HTTPDeliveryTransport(maxConnectionsPerHost: max(config.batching.concurrency, 1))
        guard config.ingestion.host == embeddedKeyword else {
            return DeliveryTarget(
                host: config.ingestion.host, transport: transport, embedded: nil,
                description: config.ingestion.host + config.ingestion.path)
        }
        let collected = stateDirectory + "/collected.ndjson"
        var collectorConfig = CollectorConfiguration(writeKey: config.writeKey)
        collectorConfig.store = .ndjson(collected)
        let server = CollectorServer(configuration: collectorConfig, logger: logger)
        _ = try await server.start()
        let url = await server.baseURL
        return DeliveryTarget(
            host: url, transport: transport, embedded: server,
            description: "embedded collector (\(url)) -> \(collected)")
    }

    /// The engine configuration for this target and `config`.
    func deliveryConfiguration(_ config: ReplayConfig) throws -> DeliveryConfiguration {
        try Self.deliveryConfiguration(config, host: host)
    }

    /// The engine configuration for `config` sending to `host` (a loaded config always passes
    /// the engine's checks: `ConfigLoader` applies the same limits, with file and line).
    static func deliveryConfiguration(_ config: ReplayConfig, host: String) throws -> DeliveryConfiguration {
        var d = DeliveryConfiguration(host: host, writeKey: config.writeKey)
        d.path = config.ingestion.path
        d.gzip = config.ingestion.gzip
        d.tracing = config.ingestion.tracing
        d.userAgent = "mr-replay/\(Enricher.libraryVersion)"
        d.requestTimeout = .milliseconds(Int64(config.ingestion.timeoutSeconds * 1000))
        d.allowInsecureHTTP = config.ingestion.allowInsecureHTTP
        d.maxBatchEvents = config.batching.maxEvents
        d.maxBatchBytes = config.batching.maxBytes
        d.maxEventBytes = config.batching.maxEventBytes
        d.concurrency = config.batching.concurrency
        d.eventsPerSecond = config.rateLimit.eventsPerSecond
        d.requestsPerSecond = config.rateLimit.requestsPerSecond
        d.maxAttempts = config.retry.maxAttempts
        d.maxElapsed = .milliseconds(Int64(config.retry.maxElapsedSeconds * 1000))
        d.retryFloor = .milliseconds(Int64(config.retry.minWaitMs))
        d.breaker.failureThreshold = config.retry.circuitBreaker.failureThreshold
        d.breaker.cooldown = .milliseconds(Int64(config.retry.circuitBreaker.cooldownMs))
        d.breaker.maxCooldown = .milliseconds(Int64(config.retry.circuitBreaker.maxCooldownMs))
        d.breaker.jitter = config.retry.circuitBreaker.jitter
        try d.validate()
        return d
    }

    /// Stops the embedded collector (flushing what it stored) and the HTTP client.
    func shutdown() async throws {
        try await transport.shutdown()
        try await embedded?.shutdown()
    }
}
