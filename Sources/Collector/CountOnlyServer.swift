import NIOCore
import NIOHTTP1
import NIOPosix

/// The benchmark sink behind `mr-collector --count-only`: a lean HTTP/1.1 server built directly
/// on SwiftNIO (no Hummingbird) that authenticates, applies Segment's limits and counts the
/// events of `POST {base}/v1/batch` requests without validating or keeping them.
///
/// - `POST {base}/v1/batch`: `Authorization: Basic base64(writeKey:)` is required (a missing or
///   wrong header gets 401; there is no authentication by a `writeKey` in the body). The body may
///   be gzip (`Content-Encoding: gzip`). Over 500,000 bytes after decompression, over 2,500
///   events or an event over 32 KiB: the configured oversize status. No `batch` array, or a
///   truncated one: 400. Otherwise the `batch` elements are counted with ``BatchSkimmer`` and
///   the answer is `200 {"success":true}`.
/// - `GET {base}/stats` (and `GET /stats`): the stats JSON, with the keys of
///   ``CollectorStats`` (`unique`, `duplicates`, `invalid` and `resets` stay 0).
/// - A non-POST on the batch path: 405; any other path: 404. Errors carry the full collector's
///   body, `{"success":false,"error":"..."}`.
///
/// Keep-alive is the HTTP/1.1 default; `Connection: close` (and HTTP/1.0 without keep-alive)
/// is honoured. Stats are shared by the event loop threads behind one lock taken once per request.
///
/// ```swift
/// let server = CountOnlyServer(configuration: .init(writeKey: "k"))
/// let port = try await server.start()      // port 0 picks a free port
/// // POST \(await server.baseURL)/v1/batch ...
/// let events = await server.stats().events
/// try await server.shutdown()              // lets requests in progress finish
/// ```
package actor CountOnlyServer {
    /// Event loop threads used when none are given. One thread measured as cheap as two under the
    /// benchmark's load on the 2-core project machine (see `docs/collector.md`), and leaves the
    /// other core to the client being measured.
    package static let defaultEventLoopThreads = 1

    /// The configuration this server runs with (`host`, `port`, `writeKey`, `basePath` and
    /// `oversizeStatus` are used; `countOnly` and `strict` are ignored).
    package let configuration: CollectorConfiguration
    /// The number of event loop threads serving connections.
    package let eventLoopThreads: Int

    private let recorder = CountOnlyStatsRecorder()
    private let registry = ConnectionRegistry()
    private var group: MultiThreadedEventLoopGroup?
    private var listener: (any Channel)?
    private var started = false
    private var boundPort = 0

    /// How long shutdown waits for a request still in progress before closing its connection.
    static let shutdownGrace: TimeAmount = .seconds(10)

    /// Errors from ``start()``.
    package enum StartError: Error, CustomStringConvertible, Equatable {
        /// `start()` was called twice.
        case alreadyStarted
        /// The configuration asks for something the count-only server does not do
        /// (fault injection or a store); the payload names it.
        case unsupported(String)

        /// A readable message.
        package var description: String {
            switch self {
            case .alreadyStarted: return "the count-only server is already started"
            case .unsupported(let what): return "the count-only server does not support \(what)"
            }
        }
    }

    /// Creates a server; nothing happens until ``start()``.
    /// - Parameters:
    ///   - configuration: what to bind, the write key, the base path and the oversize status.
    ///     `faults` must be ``FaultConfiguration/none`` and `store` ``CollectorStore/none``:
    ///     ``start()`` refuses anything else rather than ignore it.
    ///   - eventLoopThreads: threads serving connections (at least 1).
    package init(configuration: CollectorConfiguration, eventLoopThreads: Int = CountOnlyServer.defaultEventLoopThreads) {
        self.configuration = configuration
        self.eventLoopThreads = max(1, eventLoopThreads)
    }

    /// Binds and starts serving. Returns the bound port.
    /// - Throws: ``StartError`` for a second call or an unsupported configuration, or the
    ///   bind error (for example a port in use).
    package func start() async throws -> Int {
        guard !started else { throw StartError.alreadyStarted }
        if configuration.faults != .none { throw StartError.unsupported("fault injection") }
        if configuration.store != .none { throw StartError.unsupported("a store") }
        started = true
        let group = MultiThreadedEventLoopGroup(numberOfThreads: eventLoopThreads)
        let endpoint = CountOnlyEndpoint(configuration: configuration, stats: recorder)
        let registry = self.registry
        let listener: any Channel
        do {
            listener = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 1024)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                // Batch bodies are tens of kilobytes: read them in few, large reads.
                .childChannelOption(
                    .recvAllocator,
                    value: AdaptiveRecvByteBufferAllocator(minimum: 1024, initial: 64 * 1024, maximum: 256 * 1024))
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        guard registry.add(channel) else {
                            channel.close(promise: nil)
                            return
                        }
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(
                            ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                        try pipeline.addHandler(CountOnlyHandler(endpoint: endpoint))
                    }
                }
                .bind(host: configuration.host, port: configuration.port)
                .get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        self.group = group
        self.listener = listener
        boundPort = listener.localAddress?.port ?? 0
        return boundPort
    }

    /// The bound port (0 before ``start()``).
    package var port: Int { boundPort }

    /// `http://HOST:PORT` of the running server.
    package var baseURL: String { "http://\(configuration.host):\(boundPort)" }

    /// A snapshot of the counters (the same as `GET /stats`).
    package func stats() async -> CollectorStats { recorder.snapshot() }

    /// Stops accepting connections, lets requests in progress finish (each is answered with
    /// `Connection: close`; idle connections are closed at once; after 10 s any connection left
    /// is closed), then stops the event loop threads.
    package func shutdown() async throws {
        guard let group, let listener else { return }
        self.group = nil
        self.listener = nil
        try? await listener.close()
        let open = registry.quiesce()
        for channel in open {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            channel.eventLoop.scheduleTask(in: Self.shutdownGrace) { channel.close(promise: nil) }
        }
        for channel in open {
            try? await channel.closeFuture.get()
        }
        try await group.shutdownGracefully()
    }
}
