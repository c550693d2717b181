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
