import Logging
import MetaRouterDelivery
import ServiceLifecycle
import Synchronization
import SystemIO

/// A run (``ReplayRunner/run(stop:)``, ``DeadLetterRetry/run(stop:)``) as a swift-service-lifecycle
/// `Service`: a graceful shutdown of its group is the run's stop request.
///
/// Nothing starts in `init`. ``run()`` runs the work with ``stop``; a graceful shutdown, or the
/// cancellation of the service's task, raises it: the run stops reading, lets in-flight batches
/// settle, writes its checkpoint and report, and returns. What it returned or threw is kept in
/// ``outcome``. The command that runs it builds the `ServiceGroup` around it (`mr-replay`'s
/// `CommandServices`), with the signals and the companion services it needs.
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
