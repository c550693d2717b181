import Collector
import Logging
import ReplayKit

/// The loopback collector that `ingestion.host: embedded` runs inside `mr-replay`.
struct EmbeddedTarget: EmbeddedCollector {
    let server: CollectorServer

    /// A collector that accepts `writeKey` and appends what it accepts to `outputPath`.
    init(writeKey: String, outputPath: String, logger: Logger) {
        var configuration = CollectorConfiguration(writeKey: writeKey)
        configuration.store = .ndjson(outputPath)
        server = CollectorServer(configuration: configuration, logger: logger)
    }

    /// The factory the runner takes.
    static let factory: EmbeddedCollectorFactory = { writeKey, outputPath, logger in
        EmbeddedTarget(writeKey: writeKey, outputPath: outputPath, logger: logger)
    }

    /// Serves until the run cancels this task; the server then flushes its store and returns.
    func run() async throws {
        do {
            try await server.run()
        } catch is CancellationError {}
    }

    func baseURL() async throws -> String {
        "http://\(server.configuration.host):\(try await server.listeningPort())"
    }
}
