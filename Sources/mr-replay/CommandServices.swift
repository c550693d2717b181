import Collector
import Logging
import NIOCore
import NIOPosix
import ReplayKit
import ServiceLifecycle

/// The Services of `mr-replay run` and `mr-replay dead-letter retry`, in one `ServiceGroup` whose
/// graceful-shutdown signals are SIGINT and SIGTERM: ``SecondSignalExit``, the embedded
/// collector when the config names it, and the command's work, a `RunService` (which a graceful
/// shutdown stops). The group stops them in that order reversed: the work first, so the
/// collector outlives it.
struct CommandServices {
    /// The collector that `ingestion.host: embedded` names, when the config names it.
    let collector: EmbeddedCollector?
    /// The event loops the services and the work's transport run on.
    let eventLoopGroup: any EventLoopGroup
    /// The group's logger: swift-service-lifecycle logs at `.debug`; a companion's error after
    /// the work ended is a warning.
    let logger: Logger

    /// The services of a command that sends as `config` says and keeps its state (and the
    /// embedded collector's file) in `stateDirectory`, on `eventLoopGroup` (NIO's shared event
    /// loops by default). Nothing starts yet.
    init(
        config: ReplayConfig, stateDirectory: String, logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        collector =
            config.sendsToEmbeddedCollector
            ? EmbeddedCollector(
                writeKey: config.writeKey, outputPath: ReplayConfig.collectedPath(stateDirectory: stateDirectory),
                eventLoopGroup: eventLoopGroup, logger: logger)
            : nil
    }

    /// How the work reaches the embedded collector (nil when the config sends elsewhere).
    var embeddedCollectorURL: EmbeddedCollectorURL? {
        guard let collector else { return nil }
        return { try await collector.baseURL() }
    }

    /// Runs `work` with the other services until it ends, and returns what it returned (or
    /// throws what it threw).
    func run<Output: Sendable>(_ work: RunService<Output>) async throws -> Output {
        var companions: [any Service] = [SecondSignalExit()]
        if let collector { companions.append(collector) }
        return try await work.run(alongside: companions, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    }
}
