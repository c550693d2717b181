import Logging
import ServiceLifecycle
import Synchronization

/// Runs one service in a `ServiceGroup` of its own (no signal handling) on a background task,
/// for callers that start and stop a server by hand, without a group of their own: the tests
/// (``CollectorServer``'s and ``CountOnlyServer``'s `start()` and `shutdown()`).
package final class EmbeddedRunner: Sendable {
    private enum State {
        case idle
        case running(ServiceGroup, Task<Void, any Error>)
        case stopped
    }

    /// Errors from ``start(_:logger:)``.
    package enum StartError: Error, CustomStringConvertible, Equatable {
        /// `start()` was called twice.
        case alreadyStarted

        /// A readable message.
        package var description: String { "the server is already started" }
    }

    private let state = Mutex(State.idle)

    /// A runner that has started nothing yet.
    package init() {}

    /// Starts `service` in the background.
    /// - Throws: ``StartError/alreadyStarted`` after the first call.
    package func start(_ service: some Service, logger: Logger) throws {
        let group = ServiceGroup(configuration: .init(services: [service], logger: logger))
        try state.withLock { s in
            guard case .idle = s else { throw StartError.alreadyStarted }
            s = .running(group, Task { try await group.run() })
        }
    }

    /// Starts `service` in the background with `logger` quieted below `.warning`, and waits
    /// until `listening` has its port.
    /// - Throws: ``StartError/alreadyStarted`` after the first call, or the service's start error
    ///   (bind, store), once its `run()` has ended.
    package func startListening(_ service: some Service, logger: Logger, listening: ListeningPort) async throws -> Int {
        var quiet = logger
        if quiet.logLevel < .warning { quiet.logLevel = .warning }
        try start(service, logger: quiet)
        do {
            return try await listening.wait()
        } catch {
            try await waitForFailedStart()
            throw error
        }
    }

    /// Shuts the service down gracefully and waits for it; rethrows what its `run()` threw.
    /// Does nothing when it is not running.
    package func shutdown() async throws {
        let running: (ServiceGroup, Task<Void, any Error>)? = state.withLock { s in
            guard case .running(let group, let task) = s else { return nil }
            s = .stopped
            return (group, task)
        }
        guard let running else { return }
        await running.0.triggerGracefulShutdown()
        try await running.1.value
    }

    /// Waits for a service that ended by itself (a failed start); rethrows its error.
    package func waitForFailedStart() async throws {
        try await shutdown()
    }
}
