import Logging
import ServiceLifecycle

/// A server that ``withRunningServer(_:logger:isolation:_:)`` can run: a `Service` that says
/// which port it bound once it listens.
public protocol ListeningService: Service {
    /// Waits until the server listens and returns its port; throws why it will not (a bind
    /// error, once its `run()` has failed).
    func listeningPort() async throws -> Int
}

/// A server that runs for the length of a ``withRunningServer(_:logger:isolation:_:)`` body.
public struct RunningServer: Sendable {
    /// The port it listens on.
    public let port: Int
    private let group: ServiceGroup
    private let ended: AsyncStream<Void>

    init(port: Int, group: ServiceGroup, ended: AsyncStream<Void>) {
        self.port = port
        self.group = group
        self.ended = ended
    }

    /// Shuts the server down gracefully before the body ends, and waits until its `run()` has
    /// returned: it stops accepting connections and lets the requests in flight finish. What
    /// `run()` threw is thrown by ``withRunningServer(_:logger:isolation:_:)``.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
        for await _ in ended {}
    }
}

/// Runs `server` in a `ServiceGroup` of its own (no signal handling) while `body` runs, and
/// shuts it down gracefully when `body` returns or throws, as Hummingbird's test framework runs
/// an application. The body gets the server once it listens.
///
/// ```swift
/// let server = CollectorServer(configuration: .init(writeKey: "k"))
/// try await withRunningServer(server) { running in
///     // POST http://127.0.0.1:\(running.port)/v1/batch ...
/// }
/// ```
///
/// Server messages below `.warning` are dropped, unless `logger` asks for fewer.
/// - Returns: what `body` returned.
/// - Throws: what `body` threw; else what the server's `run()` threw (a store or bind error,
///   also when it never listened).
public func withRunningServer<Server: ListeningService, Value>(
    _ server: Server, logger: Logger = Logger(label: "test-server"),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (RunningServer) async throws -> Value
) async throws -> Value {
    var quiet = logger
    if quiet.logLevel < .warning { quiet.logLevel = .warning }
    let group = ServiceGroup(configuration: .init(services: [server], logger: quiet))
    let (ended, finished) = AsyncStream.makeStream(of: Void.self)
    return try await withThrowingTaskGroup(of: Void.self, returning: Value.self) { tasks in
        tasks.addTask {
            defer { finished.finish() }
            try await group.run()
        }
        let port: Int
        do {
            port = try await server.listeningPort()
        } catch {
            // The run ended before it listened: its own error says why.
            try await tasks.waitForAll()
            throw error
        }
        let result: Result<Value, any Error>
        do {
            result = .success(try await body(RunningServer(port: port, group: group, ended: ended)))
        } catch {
            result = .failure(error)
        }
        await group.triggerGracefulShutdown()
        let served: Result<Void, any Error>
        do {
            try await tasks.waitForAll()
            served = .success(())
        } catch {
            served = .failure(error)
        }
        let value = try result.get()
        try served.get()
        return value
    }
}
