import IngestionChecks
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServerLifecycle
import ServiceLifecycle

/// The benchmark sink behind `mr-collector --count-only`: a lean HTTP/1.1 server built directly
/// on SwiftNIO (pre-rendered answers, no response encoder) that applies the shared ingestion checks (``IngestionPolicy``)
/// and counts the events of `POST {base}/v1/batch` requests without validating or keeping them.
///
/// - `POST {base}/v1/batch`: `Authorization: Basic base64(writeKey:)` is required (a missing or
///   wrong header gets 401; there is no authentication by a `writeKey` in the body). The body may
///   be gzip (`Content-Encoding: gzip`). Over 500,000 bytes after decompression, over 2,500
///   events or an event over 32 KiB: the configured oversize status. No `batch` array, or a
///   truncated one: 400. Otherwise the `batch` elements are counted and the answer is
///   `200 {"success":true}`.
/// - `GET {base}/stats` (and `GET /stats`): the stats JSON, with the keys of the full
///   collector's stats (``CollectorStats``, with `unique`, `duplicates`, `invalid` and `resets` at 0).
/// - A non-POST on the batch path: 405; any other path: 404. Errors carry the full collector's
///   body, `{"success":false,"error":"..."}`.
///
/// A swift-service-lifecycle `Service`: nothing starts in `init`; ``run()`` binds and serves
/// until cancelled or shut down gracefully. The event loop group comes from the caller. Shutdown
/// goes through NIOExtras' `ServerQuiescingHelper`: the listener closes, idle connections close
/// at once, a request in progress is answered with `Connection: close` (or its connection is
/// closed after 10 s), and ``run()`` returns once every connection is closed.
package final class CountOnlyServer: Service, Sendable {
    /// Event loop threads `mr-collector --count-only` uses when none are given. One thread
    /// measured as cheap as two under the benchmark's load on the 2-core project machine (see
    /// `docs/collector.md`), and leaves the other core to the client being measured.
    package static let defaultEventLoopThreads = 1

    /// What to bind and check.
    package let configuration: CountOnlyConfiguration
    /// The event loops that serve connections.
    package let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let recorder = CountOnlyStatsRecorder()
    private let listening = ListeningPort()

    /// Creates a server; nothing happens until ``run()``.
    package init(
        configuration: CountOnlyConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "mr-collector")
    ) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
    }

    /// Binds and serves until cancelled or shut down gracefully, then waits for every connection
    /// to close.
    /// - Throws: the bind error (for example a port in use, an `IOError` with `EADDRINUSE`).
    package func run() async throws {
        let endpoint = CountOnlyEndpoint(configuration: configuration, stats: recorder)
        // Batch bodies are tens of kilobytes: read them in few, large reads.
        try await QuiescingListener.serve(
            group: eventLoopGroup, host: configuration.host, port: configuration.port, listening: listening,
            recvAllocator: AdaptiveRecvByteBufferAllocator(minimum: 1024, initial: 64 * 1024, maximum: 256 * 1024)
        ) { channel in
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
            try pipeline.addHandler(CountOnlyHandler(endpoint: endpoint))
        }
    }

    /// The bound port, once listening (0 before).
    package var port: Int { listening.current }

    /// Waits until the server is listening and returns its port.
    /// - Throws: the bind error, once ``run()`` has failed.
    package func listeningPort() async throws -> Int { try await listening.wait() }

    /// `http://HOST:PORT`, once the server is listening (port 0 if it failed to start).
    package var baseURL: String {
        get async { "http://\(configuration.host):\((try? await listening.wait()) ?? 0)" }
    }

    /// A snapshot of the counters (the same as `GET /stats`).
    package func stats() -> CollectorStats { recorder.snapshot() }
}
