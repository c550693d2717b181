import Foundation
import ReplayKit
import TestSupport
import Testing

/// The batch journal survives `kill -9`: the real binary is killed mid-run against a collector
/// that fails requests, the journal stays valid NDJSON, and a resumed run's report adds up.
@Suite(.serialized, .enabled(if: hasBuiltBinary("mr-replay") && hasBuiltBinary("mr-collector")))
struct BatchJournalCrashTests {
    /// Starts `mr-collector` failing 15 % of requests with 503 and returns it with its URL.
    static func startCollector(dir: String) async throws -> (ChildProcess, String) {
        let collector = try ChildProcess.launch(
            try builtBinary("mr-collector"),
            ["--write-key", "test-key", "--fail-rate", "0.15", "--fail-status", "503", "--seed", "5"],
            in: dir, stdout: true)
        let line = await collector.firstLine()  // it prints its URL once it listens
        let url = try #require(line.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        return (collector, url)
    }

    static func journalRecords(_ path: String) throws -> [BatchProblem] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.isEmpty || text.hasSuffix("\n"), "whole lines only")
        return try text.split(separator: "\n").map { try JSONDecoder().decode(BatchProblem.self, from: Data($0.utf8)) }
    }

    @Test func killNineLeavesAValidJournalAndTheResumedReportAddsUp() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (collector, url) = try await Self.startCollector(dir: dir)
        defer { collector.send(SIGTERM) }
        let (text, _) = generateEvents(count: 8000)
        try writeFile("\(dir)/in.ndjson", text)
        let config = try writeRunConfig(dir: dir, url: url, extra: "rate_limit: { events_per_second: 3000 }")
        let args = ["run", "--config", config, "--quiet", "\(dir)/in.ndjson"]
        let journal = "\(dir)/state/batches.ndjson"

        let watch = try FileWatch(dir)  // and the state directory the run creates in it
        let first = try ChildProcess.launch(try builtBinary("mr-replay"), args, in: dir)
        // Kill as soon as the run has journaled a problem batch, while it goes on: the watch
        // wakes on each change under `dir` and kills from its own thread.
        let journaled = await watch.wait(
            whileRunning: first.pid,
            until: {
                ((try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? 0) > 0
            }, then: { first.send(SIGKILL) })
        #expect(journaled == .held, "the run journaled a problem batch while it ran")
        #expect(await first.exit().killed(by: SIGKILL), "the kill must land mid-run")
        let beforeResume = try Self.journalRecords(journal)
        #expect(!beforeResume.isEmpty, "the killed run journaled its retried batches as it went")

        let second = try ChildProcess.launch(try builtBinary("mr-replay"), args, in: dir)
        #expect(await second.exit() == .init(status: 0, signalled: false))

        let records = try Self.journalRecords(journal)
        #expect(Array(records.prefix(beforeResume.count)) == beforeResume, "the resumed run appends")
        let runs = Set(records.map(\.run))
        #expect(runs.count == 2, "each record names its run")
        let report = try JSONDecoder().decode(
            RunReport.self, from: try Data(contentsOf: URL(fileURLWithPath: "\(dir)/state/report.json")))
        let e = report.events
        #expect(e.read == e.delivered + e.deadLettered + e.filtered + e.expired + e.consentDropped + e.alreadyDelivered + e.pending)
        #expect(e.resumedPast + e.read == 8000, "the resumed run read what the killed one had not settled")
        let secondRun = records.filter { $0.run != beforeResume[0].run }
        #expect(report.batches.problems == Array(secondRun.prefix(BatchJournal.reportCap)))
        #expect(report.batches.problemSummary != nil)
    }
}
