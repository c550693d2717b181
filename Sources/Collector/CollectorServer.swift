import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A loopback Segment/MetaRouter-compatible ingestion server with fault injection.
///
/// ```swift
/// let server = CollectorServer(configuration: .init(writeKey: "k"))
/// let port = try await server.start()      // port 0 picks a free port
/// // POST \(await server.baseURL)/v1/batch ...
/// let stats = await server.stats()
/// try await server.shutdown()              // waits for in-flight requests, flushes the store
/// ```
public actor CollectorServer {
    /// The configuration this server runs with.
    public let configuration: CollectorConfiguration
    private let logger: Logger
    private let recorder = StatsRecorder()
    private var group: ServiceGroup?
    private var runTask: Task<Void, any Error>?
    private var store: (any EventStore)?
    private var boundPort = 0

    /// Creates a server; nothing happens until `start()`.
    /// - Parameters:
    ///   - configuration: what to bind, the write key, store, limits and faults.
    ///   - logger: where server messages go. HTTP-library chatter below `.warning` is dropped.
    public init(configuration: CollectorConfiguration, logger: Logger = Logger(label: "mr-collector")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Errors from starting the server.
    public enum StartError: Error, CustomStringConvertible {
        /// `start()` was called twice.
        case alreadyStarted
        /// The server stopped before it was listening.
        case stoppedBeforeListening

        /// A readable message.
        public var description: String {
            switch self {
            case .alreadyStarted: return "the collector is already started"
            case .stoppedBeforeListening: return "the collector stopped before it was listening"
            }
        }
    }

    /// Opens the store, binds and starts serving. Returns the bound port.
    public func start() async throws -> Int {
        guard runTask == nil else { throw StartError.alreadyStarted }
        let store = try configuration.store.open()
        self.store = store
        let responder = CollectorResponder(
            configuration: configuration, stats: recorder, store: store, startedAt: .now)
        var httpLogger = logger
        if httpLogger.logLevel < .warning { httpLogger.logLevel = .warning }

        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            responder: responder,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), backlog: 1024),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: httpLogger
        )
        let group = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [], logger: httpLogger))
        self.group = group
        let failure = Mutex<(any Error)?>(nil)
        runTask = Task {
            defer { continuation.finish() }
            do {
                try await group.run()
            } catch {
                failure.withLock { $0 = error }
                throw error
            }
        }
        var port: Int?
        for await p in stream { port = p }
        guard let port else {
            try? await store?.close()
            throw failure.withLock { $0 } ?? StartError.stoppedBeforeListening
        }
        boundPort = port
        logger.debug("collector listening", metadata: ["port": "\(port)"])
        return port
    }

    /// The bound port (0 before `start()`).
    public var port: Int { boundPort }

    /// `http://HOST:PORT` of the running server.
    public var baseURL: String { "http://\(configuration.host):\(boundPort)" }

    /// A snapshot of the counters (the same as `GET /stats`).
    public func stats() async -> CollectorStats { recorder.snapshot() }

    /// Stops accepting connections, lets in-flight requests finish, then flushes and closes the store.
    public func shutdown() async throws {
        guard let group, let runTask else { return }
        self.group = nil
        await group.triggerGracefulShutdown()
        let result = await runTask.result
        try await store?.close()
        store = nil
        try result.get()
    }
}
