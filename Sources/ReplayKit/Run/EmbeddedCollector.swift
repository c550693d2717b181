import Logging

/// The collector that `ingestion.host: embedded` runs in process, on a loopback port, writing
/// what it accepts to `<state_dir>/collected.ndjson`.
///
/// ReplayKit does not link a web server: a program that wants the embedded target (the
/// `mr-replay` executable does) passes an ``EmbeddedCollectorFactory`` to ``ReplayRunner``. The
/// runner runs the collector as a child task of the run and cancels it at the end; the
/// collector finishes writing before ``run()`` returns.
public protocol EmbeddedCollector: Sendable {
    /// Serves until the calling task is cancelled, then flushes what it stored and returns.
    func run() async throws
    /// Waits until the collector listens and returns its base URL (`http://127.0.0.1:PORT`).
    /// Throws when it could not start.
    func baseURL() async throws -> String
}

/// Makes the embedded collector for a run: it accepts `writeKey` and appends to `outputPath`.
public typealias EmbeddedCollectorFactory =
    @Sendable (_ writeKey: String, _ outputPath: String, _ logger: Logger) -> any EmbeddedCollector

/// Starts the embedded collector as a child task of `group` when `config` names it (host
/// `embedded`), and returns its base URL; `nil` for any other host. A run and a dead-letter retry
/// both start their target this way.
func startEmbeddedCollector(
    _ factory: EmbeddedCollectorFactory?, config: ReplayConfig, state: StateDirectory, logger: Logger,
    in group: inout ThrowingTaskGroup<Void, any Error>
) async throws -> String? {
    guard config.ingestion.host == DeliveryTarget.embeddedKeyword else { return nil }
    guard let factory else {
        throw UsageError("ingestion.host is 'embedded', but this program has no embedded collector: set ingestion.host to a URL")
    }
    let collector = factory(config.writeKey, state.collectedPath, logger)
    group.addTask { try await collector.run() }
    do {
        return try await collector.baseURL()
    } catch {
        group.cancelAll()
        throw UsageError("cannot start the embedded collector: \(error)")
    }
}
