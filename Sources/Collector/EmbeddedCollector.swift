import Logging
import NIOCore
import ServiceLifecycle

/// The loopback collector that `ingestion.host: embedded` names, as one Service of
/// `mr-replay`'s `ServiceGroup`.
///
/// A ``CollectorServer`` on `127.0.0.1`, on a free port, that accepts the run's write key on
/// `/v1/batch` (not `/simpleanalytics`) and appends what it accepts to its output file (the
/// state directory's `collected.ndjson`). Nothing starts in `init`; ``run()`` starts serving when
/// the run first asks for the address (``baseURL()``, once it holds its state directory), so a
/// run that ends before it sends (a usage error, a busy state directory) leaves no file behind.
/// A graceful shutdown (in `mr-replay`'s group it comes after the run has settled) or a
/// cancellation lets in-flight requests finish, flushes and closes the file, and ends ``run()``.
package final class EmbeddedCollector: Service {
    private let server: CollectorServer
    /// Holds an element once the run asked for the address.
    private let demand: AsyncStream<Void>
    private let demandContinuation: AsyncStream<Void>.Continuation

    /// A collector that accepts `writeKey` and appends to `outputPath`, serving on
    /// `eventLoopGroup`; `logger` gets its messages from `.warning` up.
    package init(writeKey: String, outputPath: String, eventLoopGroup: any EventLoopGroup, logger: Logger) {
        var configuration = CollectorConfiguration(writeKey: writeKey)
        configuration.store = .ndjson(outputPath)
        configuration.servesSimpleAnalytics = false  // a run sends /v1/batch only
        var quiet = logger
        if quiet.logLevel < .warning { quiet.logLevel = .warning }
        server = CollectorServer(configuration: configuration, eventLoopGroup: eventLoopGroup, logger: quiet)
        (demand, demandContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Waits until the run asks for the address, then serves until a graceful shutdown or a
    /// cancellation, and flushes and closes the file. Ends at once, serving nothing, when the
    /// shutdown comes first.
    /// - Throws: the store's open or close error, or the bind error (as ``CollectorServer/run()``).
    package func run() async throws {
        var asked = false
        for await _ in demand.cancelOnGracefulShutdown() {
            asked = true
            break
        }
        guard asked else {
            server.listening.fail()  // a late ``baseURL()`` throws instead of waiting
            return
        }
        try await server.run()
    }

    /// Starts serving (see ``run()``), waits until it listens and returns `http://127.0.0.1:PORT`.
    /// - Throws: why it will not listen (the store or bind error), or that it was shut down first.
    package func baseURL() async throws -> String {
        demandContinuation.yield()
        return try await server.listeningURL()
    }
}
