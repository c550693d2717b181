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
