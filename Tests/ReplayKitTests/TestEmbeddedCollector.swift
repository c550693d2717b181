import Collector
import Logging
import ReplayKit

/// The embedded collector for runs in tests (the `mr-replay` executable has its own).
struct TestEmbeddedCollector: EmbeddedCollector {
    let server: CollectorServer

    static let factory: EmbeddedCollectorFactory = { writeKey, outputPath, logger in
        var configuration = CollectorConfiguration(writeKey: writeKey)
        configuration.store = .ndjson(outputPath)
        return TestEmbeddedCollector(server: CollectorServer(configuration: configuration, logger: logger))
    }

    func run() async throws { try await server.serveUntilCancelled() }

    func baseURL() async throws -> String { try await server.listeningURL() }
}
