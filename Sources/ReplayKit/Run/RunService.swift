import Logging
import MetaRouter
import ServiceLifecycle
import Synchronization
import UnixSignals

/// A run (``ReplayRunner/run(stop:)``, ``DeadLetterRetry/run(stop:)``) as a swift-service-lifecycle
/// `Service`: a graceful shutdown of its group is the run's stop request.
///
/// Nothing starts in `init`. ``run()`` runs the work with ``stop``; a graceful shutdown, or the
/// cancellation of the service's task, raises it: the run stops reading, lets in-flight batches
/// settle, writes its checkpoint and report, and returns. What it returned or threw is kept in
/// ``outcome``. ``run(alongside:gracefulShutdownSignals:logger:)`` runs it in the group that
/// `mr-replay` and the tests use.
package final class RunService<Output: Sendable>: Service {
    /// The run's stop signal, raised by a graceful shutdown or a cancellation (or by a caller).
    package let stop: StopSignal
    private let work: @Sendable (StopSignal) async throws -> Output
    private let ended = Mutex<Result<Output, any Error>?>(nil)

    /// A service that runs `work` with `stop`.
    package init(stop: StopSignal = StopSignal(), _ work: @escaping @Sendable (StopSignal) async throws -> Output) {
        self.stop = stop
        self.work = work
    }

    /// Runs the work until it returns; a graceful shutdown or a cancellation stops it early.
    /// Rethrows the work's error; keeps the outcome either way.
    package func run() async throws {
        let (stop, work) = (self.stop, self.work)
        let result: Result<Output, any Error>
        do {
            result = .success(
                try await withTaskCancellationOrGracefulShutdownHandler {
                    try await work(stop)
                } onCancelOrGracefulShutdown: {
                    stop.request()
                })
        } catch {
            result = .failure(error)
        }
        ended.withLock { $0 = result }
        _ = try result.get()
    }

    /// What the work returned or threw, once ``run()`` has ended.
    package var outcome: Result<Output, any Error>? { ended.withLock { $0 } }
}

extension RunService {
    /// Runs this service in one `ServiceGroup` after `companions` (services it needs, such as the
    /// embedded collector) and returns what the work returned, or throws what it threw.
    ///
    /// The group shuts down gracefully on `gracefulShutdownSignals`, when its own task's graceful
    /// shutdown comes, and when the work ends (or a companion ends or fails): this service first
    /// (a stop request; the group waits until the run has settled and written its report), then
    /// the companions in reverse order, so they outlive the run. An error of a companion after the
    /// work ended is logged as a warning: the work's result stands.
    package func run(
        alongside companions: [any Service], gracefulShutdownSignals: [UnixSignal] = [], logger: Logger
    ) async throws -> Output {
        let services = (companions + [self]).map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: gracefulShutdownSignals, logger: logger))
        var groupError: (any Error)?
        do {
            try await group.run()
        } catch {
            groupError = error
        }
        guard let outcome else {
            // The work never ran to its end: the group stopped before (a companion failed at once).
            throw groupError ?? CancellationError()
        }
        if let groupError, case .success = outcome { logger.warning("\(groupError)") }
        return try outcome.get()
    }
}
