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

    func run() async throws {
        _ = try await server.start()
        // Serve until the run cancels this task; then stop and flush the store.
        await withTaskCancellationHandler {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        } onCancel: {}
        try await server.shutdown()
    }

    func baseURL() async throws -> String {
        while await server.baseURL.hasSuffix(":0") { try await Task.sleep(for: .milliseconds(5)) }
        return await server.baseURL
    }
}
