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
        configuration.servesSimpleAnalytics = false  // a run sends /v1/batch only
        server = CollectorServer(configuration: configuration, logger: logger)
    }

    /// The factory the runner takes.
    static let factory: EmbeddedCollectorFactory = { writeKey, outputPath, logger in
        EmbeddedTarget(writeKey: writeKey, outputPath: outputPath, logger: logger)
    }

    func run() async throws { try await server.serveUntilCancelled() }

    func baseURL() async throws -> String { try await server.listeningURL() }
}
