import Foundation
import ReplayKit
import TestSupport
import Testing

/// `mr-replay run --metrics-file` and `mr-replay status` end to end, through the binary.
@Suite(.serialized, .heavy, .enabled(if: hasBuiltBinary("mr-replay"), "needs the mr-replay binary next to the test bundle (swift build)"))
final class MetricsCommandLineTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    func run(_ args: [String]) throws -> (code: Int32, out: String, err: String) {
        try runReplayBinary(args, in: dir)
    }

    @Test func everyRunWritesItsMetricsAndAFailedOneKeepsTheLastSuccess() throws {
        let page = #"{"type":"page","anonymousId":"a","timestamp":"2024-01-01T00:00:00Z"}"#
        try writeFile("\(dir)/in.ndjson", "\(page)\n\(page)\nnot json\n")
        let before = Date().timeIntervalSince1970.rounded(.down)
        let first = try run(["run", "--quiet", "--state-dir", "st", "--metrics-file", "m.prom", "in.ndjson"])
        #expect(first.code == 1, "\(first.err)")
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: "\(dir)/st/report.json")))
        let m = try ExpositionText(parsing: String(contentsOfFile: "\(dir)/m.prom", encoding: .utf8))
        #expect(m.value("mr_replay_run_events", ["outcome": "delivered", "state_dir": "st"]) == Double(report.events.delivered))
        #expect(m.value("mr_replay_run_events", ["outcome": "dead_lettered"]) == 1)
        #expect(m.value("mr_replay_run_dead_lettered_events", ["reason": "invalid_json"]) == 1)
        #expect(m.value("mr_replay_run_responses", ["status": "200"]) == Double(report.responses["200"] ?? -1))
        #expect(m.value("mr_replay_run_batches", ["result": "succeeded"]) == Double(report.batches.succeeded))
        #expect(m.value("mr_replay_run_duration_seconds") == report.durationSeconds)
        #expect(m.value("mr_replay_run_exit_code") == 1)
        let success = try #require(m.value("mr_replay_last_success_timestamp_seconds"))
        #expect(success >= before && success <= Date().timeIntervalSince1970 + 1)

        // A config error (exit 2): the file says so, and keeps the last success.
        let broken = try run(["run", "--config", "missing.yaml", "--state-dir", "st", "--metrics-file", "m.prom", "in.ndjson"])
        #expect(broken.code == 2, "\(broken.err)")
        let after = try ExpositionText(parsing: String(contentsOfFile: "\(dir)/m.prom", encoding: .utf8))
        #expect(after.value("mr_replay_run_exit_code", ["state_dir": "st"]) == 2)
        #expect(after.value("mr_replay_run_info", ["status": "not_started"]) == 1)
        #expect(after.value("mr_replay_last_success_timestamp_seconds") == success)

        // A dry run writes no metrics: asking for them is a usage error.
        let dry = try run(["run", "--dry-run", "--metrics-file", "m.prom", "in.ndjson"])
        #expect(dry.code == 2 && dry.err.contains("--metrics-file"), "\(dry.err)")

        let status = try run(["status", "--state-dir", "st"])
        #expect(status.code == 0, "\(status.err)")
        #expect(status.out.contains("recent runs (newest first):\n  "), "\(status.out)")
        #expect(status.out.contains("\(report.runId)  completed_with_drops (exit 1)  2 delivered, 1 dead-lettered"), "\(status.out)")
    }
}
