import Foundation
import MetaRouterDelivery
import Prometheus
import SystemIO

/// The figures of one finished run in the Prometheus text exposition format, for node_exporter's
/// textfile collector (`mr-replay run --metrics-file PATH`). Every figure describes the last run,
/// so they are gauges; the file is replaced whole by each run.
package struct RunMetrics: Sendable {
    /// The run's report, or nil when the run stopped before it started (a usage or config error).
    package var report: RunReport?
    /// The process exit code.
    package var exitCode: Int32
    /// When the run ended.
    package var finishedAt: Date
    /// The `state_dir` label on every sample, which keeps the files of several jobs apart.
    package var stateDirectory: String

    /// Metrics of a run that ended at `finishedAt` with `exitCode`.
    package init(report: RunReport?, exitCode: Int32, finishedAt: Date, stateDirectory: String) {
        self.report = report
        self.exitCode = exitCode
        self.finishedAt = finishedAt
        self.stateDirectory = stateDirectory
    }

    /// Whether the run went through all its inputs (exit 0 or 1): the run that moves
    /// `mr_replay_last_success_timestamp_seconds`.
    package var succeeded: Bool {
        guard let status = report?.status else { return false }
        return status == .completed || status == .completedWithDrops
    }

    /// The exposition text. `previousLastSuccess` is the last success of the file this one
    /// replaces: a run that did not succeed keeps it (0 when there was none).
    package func render(previousLastSuccess: Double?) -> String {
        let finished = finishedAt.timeIntervalSince1970.rounded()
        let lastSuccess = succeeded ? finished : previousLastSuccess ?? 0
        // A shard's samples also say which shard (`K/N`), so a dashboard can sum a sharded job.
        let base = [("state_dir", stateDirectory)] + (report?.shard.map { [("shard", $0)] } ?? [])
        var text = ""
        func family(_ name: String, _ help: String, _ samples: [(labels: [(String, String)], value: Double)]) {
            // One registry per family keeps the families in this order in the file.
            let registry = PrometheusCollectorRegistry()
            for sample in samples {
                let descriptor = MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
                registry.makeGauge(descriptor: descriptor, labels: base + sample.labels).set(sample.value)
            }
            text += registry.emitToString()
        }
        family("mr_replay_run_info", "How the last run ended (status label); always 1.", [([("status", statusLabel)], 1)])
        family("mr_replay_run_exit_code", "The last run's process exit code.", [([], Double(exitCode))])
        family("mr_replay_run_timestamp_seconds", "When the last run ended, in Unix seconds.", [([], finished)])
        family(
            "mr_replay_last_success_timestamp_seconds",
            "When the last run that went through all its inputs (exit 0 or 1) ended, in Unix seconds; 0 if none is known.",
            [([], lastSuccess)])
        family("mr_replay_run_duration_seconds", "How long the last run took.", [([], report?.durationSeconds ?? 0)])
        guard let report else { return text }
        family("mr_replay_run_events", "Events of the last run by outcome; they add up to the events read.", Self.events(report))
        family(
            "mr_replay_run_dead_lettered_events", "Dead-lettered events of the last run by reason.",
            report.deadLetterReasons.sorted { $0.key < $1.key }.map { ([("reason", $0.key)], Double($0.value)) })
        family("mr_replay_run_batches", "Batches of the last run by result.", Self.batches(report))
        family(
            "mr_replay_run_responses", "HTTP responses of the last run by status (or network_error).",
            report.responses.sorted { $0.key < $1.key }.map { ([("status", $0.key)], Double($0.value)) })
        if let resources = report.resources {
            family("mr_replay_run_cpu_seconds", "CPU seconds (user and system) the last run used.", [([], resources.cpuSeconds)])
            family(
                "mr_replay_run_peak_resident_bytes", "The most memory the last run held resident at once, in bytes.",
                [([], Double(resources.peakResidentBytes))])
        }
        return text
    }

    /// `completed`, ..., or `not_started` for a run that stopped on a usage or config error.
    var statusLabel: String { report?.status.rawValue ?? "not_started" }

    /// The report's event outcomes, which partition `events.read`.
    static func events(_ report: RunReport) -> [(labels: [(String, String)], value: Double)] {
        let e = report.events
        return [
            ("delivered", e.delivered), ("dead_lettered", e.deadLettered), ("filtered", e.filtered),
            ("expired", e.expired), ("consent_dropped", e.consentDropped), ("already_delivered", e.alreadyDelivered),
            ("pending", e.pending),
        ].map { ([("outcome", $0.0)], Double($0.1)) }
    }

    /// Sent batches, and how many of them succeeded, were retried or were split.
    static func batches(_ report: RunReport) -> [(labels: [(String, String)], value: Double)] {
        let b = report.batches
        return [("sent", b.sent), ("succeeded", b.succeeded), ("retried", b.retried), ("split", b.split)]
            .map { ([("result", $0.0)], Double($0.1)) }
    }
}

/// Writes ``RunMetrics`` to a file the textfile collector reads.
package enum MetricsFile {
    /// Writes `metrics` to `path` with `fileSystem`'s atomic write, so the collector reads the
    /// old file or the new one, never a part (``LocalFileSystem``'s temporary file is a dot file
    /// not ending in `.prom`, which the collector never reads). The previous file's last success
    /// is carried over. The directory must exist; errors name `path`.
    package static func write(
        _ metrics: RunMetrics, to path: String, fileSystem: any FileSystem = LocalFileSystem()
    ) throws {
        let old = (try? fileSystem.read(path)) ?? nil
        let previous = old.flatMap { lastSuccess(in: String(decoding: $0, as: UTF8.self)) }
        let text = metrics.render(previousLastSuccess: previous)
        try fileSystem.writeAtomically(path, Array(text.utf8))
    }

    /// The value of `mr_replay_last_success_timestamp_seconds` in an exposition text, if any.
    package static func lastSuccess(in text: String) -> Double? {
        let name = "mr_replay_last_success_timestamp_seconds"
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let rest = line.dropFirst(name.count)
            guard rest.first == " " || rest.first == "{" else { continue }
            // The value follows the labels (whose values may hold spaces and braces).
            let afterLabels = rest.first == "{" ? rest.lastIndex(of: "}").map { rest[rest.index(after: $0)...] } ?? "" : rest
            if let value = afterLabels.split(separator: " ").first.flatMap({ Double($0) }) { return value }
        }
        return nil
    }
}
