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
