import Collector
import Logging
import NIOCore
import NIOPosix
import ReplayKit
import ServiceLifecycle

/// The Services of `mr-replay run`, `mr-replay dead-letter retry` and `mr-replay partition`, in
/// the one `ServiceGroup` of the process, whose graceful-shutdown signals are SIGINT and SIGTERM:
/// ``SecondSignalExit``, the embedded collector when the config names it, and the command's
/// work, a `RunService` (which a graceful shutdown stops). The group stops them in that order
/// reversed: the work first, so the collector outlives it. Nothing below the command builds a
/// group or traps a signal.
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

    /// The services of a command that sends nowhere (`mr-replay partition`): the signal rule
    /// and the work only.
    init(logger: Logger) {
        self.logger = logger
        eventLoopGroup = MultiThreadedEventLoopGroup.singleton
        collector = nil
    }

    /// Runs `work` in one `ServiceGroup` after the other services, and returns what it returned
    /// (or throws what it threw).
    ///
    /// The group shuts down gracefully on SIGINT and SIGTERM, and when the work ends (or a
    /// companion ends or fails): the work first (a stop request; the group waits until the run
    /// has settled and written its report), then the companions in reverse order, so they
    /// outlive the run. An error of a companion after the work ended is logged as a warning: the
    /// work's result stands.
    func run<Output: Sendable>(_ work: RunService<Output>) async throws -> Output {
        var companions: [any Service] = [SecondSignalExit()]
        if let collector { companions.append(collector) }
        let services = (companions + [work]).map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        var groupError: (any Error)?
        do {
            try await group.run()
        } catch {
            groupError = error
        }
        guard let outcome = work.outcome else {
            // The work never ran to its end: the group stopped before (a companion failed at once).
            throw groupError ?? CancellationError()
        }
        if let groupError, case .success = outcome { logger.warning("\(groupError)") }
        return try outcome.get()
    }
}
