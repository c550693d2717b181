import IngestionChecks
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServerLifecycle
import ServiceLifecycle
import SystemTLS

/// A loopback Segment/MetaRouter-compatible ingestion server with fault injection, as a
/// swift-service-lifecycle `Service`.
///
/// Nothing starts in `init`: ``run()`` opens the store, binds and serves until the task is
/// cancelled or the service group shuts down gracefully (then in-flight requests finish and the
/// store is flushed and closed). The event loop group comes from the caller.
///
/// ```swift
/// let server = CollectorServer(configuration: .init(writeKey: "k"))
/// let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// async let running: Void = group.run()
/// let port = try await server.listeningPort()  // waits until it is listening (port 0: a free one)
/// let url = await server.baseURL
/// // POST \(url)/v1/batch ...
/// let stats = server.stats()
/// ```
public final class CollectorServer: Service, Sendable {
    /// The configuration this server runs with.
    public let configuration: CollectorConfiguration
    /// The event loops that serve connections.
    public let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    private let recorder = StatsRecorder()
    let listening = ListeningPort()

    /// Creates a server; nothing happens until ``run()``.
    /// - Parameters:
    ///   - configuration: what to bind, the write key, store, limits and faults.
    ///   - eventLoopGroup: where connections are served (by default NIO's shared singleton).
    ///   - logger: where server messages go. HTTP-library chatter below `.warning` is dropped.
    public init(
        configuration: CollectorConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "mr-collector")
    ) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
    }

    /// Opens the store, binds and serves until cancelled or shut down gracefully; then lets
    /// in-flight requests finish and flushes and closes the store.
    /// - Throws: a ``CollectorTLSError``, the store's open or close error, or the bind error (for
    ///   example a port in use, an `IOError` with `EADDRINUSE`).
    public func run() async throws {
        let store: (any EventStore)?
        let simpleAnalyticsStore: NDJSONStore?
        let tls: TLSContext?
        do {
            tls = try configuration.tls?.serverContext()
            store = try configuration.store.open()
        } catch {
            listening.fail(error)
            throw error
        }
        do {
            simpleAnalyticsStore = try configuration.openSimpleAnalyticsStore()
        } catch {
            try? await store?.close()
            listening.fail(error)
            throw error
        }
        let responder = CollectorResponder(
            configuration: configuration, stats: recorder, store: store, startedAt: .now,
            simpleAnalyticsStore: simpleAnalyticsStore)
        let result = await Result(awaiting: {
            try await QuiescingListener.serve(
                group: eventLoopGroup, host: configuration.host, port: configuration.port, listening: listening
            ) { channel in
                let pipeline = channel.pipeline.syncOperations
                if let tls { try pipeline.addHandler(TLSHandler(server: tls)) }
                try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false)
                try pipeline.addHandler(CollectorHTTPHandler { await responder.respond(to: $0) })
            }
        })
        let closed = await Result(awaiting: {
            try await store?.close()
            try await simpleAnalyticsStore?.close()
        })
        try result.get()
        try closed.get()
    }

    /// The bound port, once listening (0 before).
    public var port: Int { listening.current }

    /// Waits until the server is listening and returns its port.
    /// - Throws: why it will not listen (the bind or store error), once ``run()`` has failed.
    public func listeningPort() async throws -> Int { try await listening.wait() }

    /// `http://HOST:PORT` (`https` with TLS), once the server is listening (port 0 if it failed to start).
    public var baseURL: String {
        get async { "\(configuration.scheme)://\(configuration.host):\((try? await listening.wait()) ?? 0)" }
    }

    /// A snapshot of the counters (the same as `GET /stats`).
    public func stats() -> CollectorStats { recorder.snapshot() }

    /// Returns once the server has counted `count` ingestion requests (at once if it has), or
    /// when the calling task is cancelled: for a caller that must act while requests are in flight.
    package func waitForRequests(_ count: Int) async { await recorder.waitForRequests(count) }
}
