import Foundation
import Logging
@_spi(PerLine) import MetaRouter

/// Where a run sends its events: a remote endpoint, or the embedded collector (host
/// `embedded`), which the runner starts in process and which writes to
/// `<state_dir>/collected.ndjson`.
struct DeliveryTarget: Sendable {
    /// The base URL events go to.
    let host: String
    /// The HTTP client the engine sends with; shut down at the end of the run.
    let transport: any ClosableDeliveryTransport
    /// What the report names as the destination.
    let description: String

    /// The keyword that selects the embedded collector.
    static let embeddedKeyword = "embedded"

    /// The target for `config`; `embeddedURL` is the running embedded collector's base URL
    /// when the config names it, and `collectedPath` the file it writes. A remote host gets the
    /// configuration's TLS and proxy settings (`config.ingestion.security`); the embedded
    /// collector, plain http on loopback, gets neither.
    init(config: ReplayConfig, embeddedURL: String?, collectedPath: String) {
        let security = embeddedURL == nil ? config.ingestion.security : TransportSecurity()
        let connections = max(config.batching.concurrency, 1)
        // The lean SwiftNIO transport for http:// and https:// without a proxy; AsyncHTTPClient
        // through a proxy (docs/delivery.md, "Two transports").
        transport = LeanHTTPTransport.selected(
            host: embeddedURL ?? config.ingestion.host, security: security, maxConnectionsPerHost: connections
        ) {
            HTTPDeliveryTransport(maxConnectionsPerHost: connections, security: security)
        }
        if let embeddedURL {
            host = embeddedURL
            description = "embedded collector (\(embeddedURL)) -> \(collectedPath)"
        } else {
            host = config.ingestion.host
            description = config.ingestion.host + config.ingestion.path
        }
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

    /// Shuts down the HTTP client.
    func shutdown() async {
        await transport.shutdown()
    }
}
