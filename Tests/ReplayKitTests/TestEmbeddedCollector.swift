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

    /// Serves until the run cancels this task, then shuts the server down gracefully (in-flight
    /// requests finish, the store is flushed) rather than cancelling it, which would log errors.
    func run() async throws {
        _ = try await server.start()
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        try await server.shutdown()
    }

    func baseURL() async throws -> String {
        "http://\(server.configuration.host):\(try await server.listeningPort())"
    }
}
