import Foundation
import RunReporting
import SystemIO
import TestSupport
import Testing

/// `--metrics-file`: the text, the values, the last success, and the atomic replacement.
@Suite final class MetricsFileTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// A report whose every figure differs from the others, so a figure under the wrong label shows.
    static func report(status: RunReport.Status) -> RunReport {
        var r = RunReport()
        r.status = status
        r.events.delivered = 901
        r.events.deadLettered = 7
        r.events.filtered = 13
        r.events.expired = 3
        r.events.consentDropped = 2
        r.events.alreadyDelivered = 5
        r.events.pending = status == .completed || status == .completedWithDrops ? 0 : 11
        r.events.read =
            r.events.delivered + r.events.deadLettered + r.events.filtered + r.events.expired
            + r.events.consentDropped + r.events.alreadyDelivered + r.events.pending
        r.deadLetterReasons = ["invalid_json": 4, "rejected_400": 3]
        r.batches.sent = 23
        r.batches.succeeded = 19
        r.batches.retried = 6
        r.batches.split = 2
        r.responses = ["200": 19, "503": 8, "400": 2, "network_error": 1]
        r.durationSeconds = 12.25
        return r
    }

    let t1 = Date(timeIntervalSince1970: 1_795_000_000)
    let t2 = Date(timeIntervalSince1970: 1_795_086_400)

    func read(_ path: String) throws -> ExpositionText {
        try ExpositionText(parsing: try String(contentsOfFile: path, encoding: .utf8))
    }

    @Test func theFileHoldsTheReportsFiguresWithHelpTypeAndUnits() throws {
        let report = Self.report(status: .completedWithDrops)
        let path = "\(dir)/mr-replay.prom"
        try MetricsFile.write(RunMetrics(report: report, exitCode: 1, finishedAt: t1, stateDirectory: "/var/lib/mr \"a\""), to: path)
        let m = try read(path)

        let names = Set(m.samples.map(\.name))
        #expect(
            names == [
                "mr_replay_run_info", "mr_replay_run_exit_code", "mr_replay_run_timestamp_seconds",
                "mr_replay_last_success_timestamp_seconds", "mr_replay_run_duration_seconds", "mr_replay_run_events",
                "mr_replay_run_dead_lettered_events", "mr_replay_run_batches", "mr_replay_run_responses",
            ])
        for name in names {
            #expect(m.type[name] == "gauge", "\(name)")
            #expect(!(m.help[name] ?? "").isEmpty, "\(name)")
        }
        #expect(m.samples.allSatisfy { $0.labels["state_dir"] == "/var/lib/mr \"a\"" }, "every sample names its state directory")

        let e = report.events
        #expect(
            m.values("mr_replay_run_events", by: "outcome") == [
                "delivered": Double(e.delivered), "dead_lettered": Double(e.deadLettered), "filtered": Double(e.filtered),
                "expired": Double(e.expired), "consent_dropped": Double(e.consentDropped),
                "already_delivered": Double(e.alreadyDelivered), "pending": Double(e.pending),
            ])
        #expect(m.values("mr_replay_run_events", by: "outcome").values.reduce(0, +) == Double(e.read))
        #expect(m.values("mr_replay_run_dead_lettered_events", by: "reason") == report.deadLetterReasons.mapValues(Double.init))
        #expect(m.values("mr_replay_run_batches", by: "result") == ["sent": 23, "succeeded": 19, "retried": 6, "split": 2])
        #expect(m.values("mr_replay_run_responses", by: "status") == report.responses.mapValues(Double.init))
        #expect(m.value("mr_replay_run_duration_seconds") == 12.25)
        #expect(m.value("mr_replay_run_exit_code") == 1)
        #expect(m.value("mr_replay_run_timestamp_seconds") == t1.timeIntervalSince1970)
        #expect(m.value("mr_replay_last_success_timestamp_seconds") == t1.timeIntervalSince1970, "exit 1 went through all inputs")
        #expect(m.value("mr_replay_run_info", ["status": "completed_with_drops"]) == 1)
    }

    @Test func aRunThatDidNotSucceedKeepsThePreviousLastSuccess() throws {
        let path = "\(dir)/m.prom"
        try MetricsFile.write(RunMetrics(report: Self.report(status: .completed), exitCode: 0, finishedAt: t1, stateDirectory: "s"), to: path)
        for (status, code) in [(RunReport.Status.stoppedTransient, Int32(75)), (.failedFatal, 3), (.interrupted, 75)] {
            try MetricsFile.write(RunMetrics(report: Self.report(status: status), exitCode: code, finishedAt: t2, stateDirectory: "s"), to: path)
            let m = try read(path)
            #expect(m.value("mr_replay_last_success_timestamp_seconds") == t1.timeIntervalSince1970, "\(status)")
            #expect(m.value("mr_replay_run_timestamp_seconds") == t2.timeIntervalSince1970)
            #expect(m.value("mr_replay_run_exit_code") == Double(code))
            #expect(m.value("mr_replay_run_events", ["outcome": "pending"]) == 11)
        }
        // A run that never started (a config error) keeps it too, and says why.
        try MetricsFile.write(RunMetrics(report: nil, exitCode: 2, finishedAt: t2, stateDirectory: "s"), to: path)
        let failed = try read(path)
        #expect(failed.value("mr_replay_last_success_timestamp_seconds") == t1.timeIntervalSince1970)
        #expect(failed.value("mr_replay_run_exit_code") == 2)
        #expect(failed.value("mr_replay_run_info", ["status": "not_started"]) == 1)
        #expect(failed.value("mr_replay_run_events", ["outcome": "delivered"]) == nil)
        // The next success moves it.
        try MetricsFile.write(RunMetrics(report: Self.report(status: .completed), exitCode: 0, finishedAt: t2, stateDirectory: "s"), to: path)
        #expect(try read(path).value("mr_replay_last_success_timestamp_seconds") == t2.timeIntervalSince1970)
    }

    @Test func withoutAPreviousSuccessTheLastSuccessIsZero() throws {
        let path = "\(dir)/m.prom"
        try MetricsFile.write(RunMetrics(report: Self.report(status: .failedFatal), exitCode: 3, finishedAt: t2, stateDirectory: "s"), to: path)
        #expect(try read(path).value("mr_replay_last_success_timestamp_seconds") == 0)
        // Labels with braces and spaces do not confuse reading the previous value back.
        let text = "mr_replay_last_success_timestamp_seconds{state_dir=\"a} 9\"} 1795000000.0\n"
        #expect(MetricsFile.lastSuccess(in: text) == 1_795_000_000)
        #expect(MetricsFile.lastSuccess(in: "mr_replay_last_success_timestamp_seconds_other 5\n") == nil)
    }

    @Test func theFileIsReplacedByTheAtomicWriteNeverWrittenInPlace() throws {
        let path = "\(dir)/mr-replay.prom"
        let metrics = RunMetrics(report: Self.report(status: .completed), exitCode: 0, finishedAt: t1, stateDirectory: "s")
        try MetricsFile.write(metrics, to: path)
        let old = try String(contentsOfFile: path, encoding: .utf8)
        var next = metrics
        next.finishedAt = t2
        let finished = t2.timeIntervalSince1970
        let fileSystem = CrashableFileSystem { target, bytes in
            // Until the rename, readers see the whole old file; the new text is complete.
            #expect(try String(contentsOfFile: target, encoding: .utf8) == old)
            let new = try ExpositionText(parsing: String(decoding: bytes, as: UTF8.self))
            #expect(new.value("mr_replay_run_timestamp_seconds") == finished)
        }
        try MetricsFile.write(next, to: path, fileSystem: fileSystem)
        #expect(fileSystem.written == [path], "one atomic write of the whole file")
        #expect(try read(path).value("mr_replay_run_timestamp_seconds") == finished)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["mr-replay.prom"])
        // Where the atomic write puts the new text before the rename.
        let temporary = LocalFileSystem.temporaryPath(for: path)
        #expect((temporary as NSString).deletingLastPathComponent == dir, "same directory, so rename is atomic")
        let name = (temporary as NSString).lastPathComponent
        #expect(name.hasPrefix(".") && !name.hasSuffix(".prom"), "the textfile collector never reads it: \(name)")
    }

    @Test func aWriteStoppedBeforeTheRenameLeavesTheOldFileForTheCollector() throws {
        let path = "\(dir)/mr-replay.prom"
        let metrics = RunMetrics(report: Self.report(status: .completed), exitCode: 0, finishedAt: t1, stateDirectory: "s")
        try MetricsFile.write(metrics, to: path)
        let old = try String(contentsOfFile: path, encoding: .utf8)
        var next = metrics
        next.finishedAt = t2
        struct Interrupted: Error {}
        #expect(throws: Interrupted.self) {
            try MetricsFile.write(next, to: path, fileSystem: CrashableFileSystem { _, _ in throw Interrupted() })
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == old)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.count == 2, "the stopped write's leftover: \(names)")
        #expect(names.filter { $0.hasSuffix(".prom") } == ["mr-replay.prom"], "the collector reads the old file only: \(names)")
    }

    @Test func aMissingDirectoryIsAnErrorNamingTheFile() throws {
        let path = "\(dir)/missing/m.prom"
        let metrics = RunMetrics(report: nil, exitCode: 2, finishedAt: t1, stateDirectory: "s")
        let error = try #require(throws: FileSystemError.self) { try MetricsFile.write(metrics, to: path) }
        #expect(error.description.contains(path), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/missing"))
    }
}
