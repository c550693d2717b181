import ReplayConfiguration

/// How a run reaches the collector that `ingestion.host: embedded` names: waits until it listens
/// and returns its base URL (`http://127.0.0.1:PORT`), or throws why it will not.
///
/// ReplayKit links no web server: the caller runs the collector and passes this to
/// ``ReplayRunner`` (and ``DeadLetterRetry``). `mr-replay` runs it as a Service of the command's
/// `ServiceGroup`, writing to ``ReplayConfig/collectedPath(stateDirectory:)``; the run calls
/// this once it holds the state directory, and the group stops the collector after the run.
public typealias EmbeddedCollectorURL = @Sendable () async throws -> String

extension ReplayConfig {
    /// Whether events go to the embedded collector (`ingestion.host: embedded`), which the
    /// caller runs (``EmbeddedCollectorURL``).
    package var sendsToEmbeddedCollector: Bool { ingestion.host == ReplayConfig.embeddedHost }

    /// The file the embedded collector appends to for the state directory `stateDirectory`.
    package static func collectedPath(stateDirectory: String) -> String {
        StateDirectory.collectedPath(in: stateDirectory)
    }

    /// The embedded collector's base URL, from `url`, when this config names it; nil for any
    /// other host. Throws a ``UsageError`` when the config names it and the program has none,
    /// or when it did not start.
    func embeddedCollectorURL(from url: EmbeddedCollectorURL?) async throws -> String? {
        guard sendsToEmbeddedCollector else { return nil }
        guard let url else {
            throw UsageError("ingestion.host is 'embedded', but this program has no embedded collector: set ingestion.host to a URL")
        }
        do {
            return try await url()
        } catch {
            throw UsageError("cannot start the embedded collector: \(error)")
        }
    }
}
