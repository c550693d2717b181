import Foundation
import Logging
@_spi(PerLine) import MetaRouterDelivery
import NIOCore
import NIOPosix
import ReplayConfiguration

/// Where a run sends its events: a remote endpoint, or the embedded collector (host
/// `embedded`), which the caller runs in process (``EmbeddedCollectorURL``) and which writes to
/// `<state_dir>/collected.ndjson`.
package struct DeliveryTarget: Sendable {
    /// The base URL events go to.
    let host: String
    /// The HTTP transport the engine sends with; shut down when ``with(config:embeddedURL:collectedPath:eventLoopGroup:_:)``'s body ends.
    let transport: LeanHTTPTransport
    /// What the report names as the destination.
    let description: String

    /// The target for `config`; `embeddedURL` is the running embedded collector's base URL
    /// when the config names it, and `collectedPath` the file it writes. A remote host gets the
    /// configuration's TLS and proxy settings (`config.ingestion.security`); the embedded
    /// collector, plain http on loopback, gets neither. The transport runs on one event loop of
    /// `eventLoopGroup`, which the engine shares (docs/delivery.md, "Threads").
    private init(
        config: ReplayConfig, embeddedURL: String?, collectedPath: String,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        let security = embeddedURL == nil ? config.ingestion.security : TransportSecurity()
        transport = LeanHTTPTransport(
            eventLoopGroup: eventLoopGroup.next(), maxConnectionsPerHost: max(config.delivery.concurrency, 1),
            security: security)
        if let embeddedURL {
            host = embeddedURL
            description = "embedded collector (\(embeddedURL)) -> \(collectedPath)"
        } else {
            host = config.ingestion.host
            description = config.ingestion.host + config.delivery.path
        }
    }

    /// The engine configuration for this target and `config`.
    func deliveryConfiguration(_ config: ReplayConfig) throws -> DeliveryConfiguration {
        try config.deliveryConfiguration(host: host)
    }

    /// An engine sending to this target with `configuration`, or through `override` (tests). On
    /// the transport's event loop when it has one: the reader's chunks are then the only calls
    /// from another thread (docs/delivery.md, "Threads").
    func engine(
        configuration: DeliveryConfiguration, override: (any DeliveryTransport)?, logger: Logger,
        onOutcomes: @escaping @Sendable ([EventOutcome]) -> Void
    ) -> DeliveryEngine {
        if let override {
            return DeliveryEngine(configuration: configuration, transport: override, logger: logger, onOutcomes: onOutcomes)
        }
        return DeliveryEngine(
            configuration: configuration, transport: transport, logger: logger,
            eventLoop: transport.eventLoop, onOutcomes: onOutcomes)
    }

    /// Makes the target for `config` (see ``init(config:embeddedURL:collectedPath:eventLoopGroup:)``),
    /// runs `body` with it, and shuts its HTTP transport down when `body` returns or throws: the
    /// transport belongs to the run that sends with it, and lives exactly as long as its body.
    static func with<T>(
        config: ReplayConfig, embeddedURL: String?, collectedPath: String,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        _ body: (DeliveryTarget) async throws -> T
    ) async throws -> T {
        let target = DeliveryTarget(
            config: config, embeddedURL: embeddedURL, collectedPath: collectedPath, eventLoopGroup: eventLoopGroup)
        do {
            let result = try await body(target)
            await target.transport.shutdown()
            return result
        } catch {
            await target.transport.shutdown()
            throw error
        }
    }
}
