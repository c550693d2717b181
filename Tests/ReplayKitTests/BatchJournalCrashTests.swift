import Foundation
import Testing

@testable import ReplayKit

/// The batch journal survives `kill -9`: the real binary is killed mid-run against a collector
/// that fails requests, the journal stays valid NDJSON, and a resumed run's report adds up.
@Suite(.serialized, .enabled(if: hasBuiltBinary("mr-replay") && hasBuiltBinary("mr-collector")))
struct BatchJournalCrashTests {
    /// Starts `mr-collector` failing 15 % of requests with 503 and returns it with its URL.
    static func startCollector(dir: String) throws -> (Process, String) {
        let collector = Process()
        collector.executableURL = try builtBinary("mr-collector")
        collector.arguments = ["--write-key", "test-key", "--fail-rate", "0.15", "--fail-status", "503", "--seed", "5"]
        let out = Pipe()
        collector.standardOutput = out
        collector.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try collector.run()
        var text = ""
        while !text.contains("\n"), let chunk = try out.fileHandleForReading.read(upToCount: 1), !chunk.isEmpty {
            text += String(decoding: chunk, as: UTF8.self)
        }
        let url = try #require(text.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
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
        let (collector, url) = try Self.startCollector(dir: dir)
        defer { collector.terminate() }
        let (text, _) = generateEvents(count: 8000)
        try writeFile("\(dir)/in.ndjson", text)
        let config = try writeRunConfig(dir: dir, url: url, extra: "rate_limit: { events_per_second: 3000 }")
        let args = ["run", "--config", config, "--quiet", "\(dir)/in.ndjson"]
        let journal = "\(dir)/state/batches.ndjson"

        let first = Process()
        first.executableURL = try builtBinary("mr-replay")
        first.arguments = args
        first.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try first.run()
        // Kill once the run has journaled a problem batch (bounded wait), while it goes on.
        for _ in 0..<400 where first.isRunning {
            if let size = try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int, size > 0 { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(first.isRunning, "the kill must land mid-run")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let beforeResume = try Self.journalRecords(journal)
        #expect(!beforeResume.isEmpty, "the killed run journaled its retried batches as it went")

        let second = Process()
        second.executableURL = try builtBinary("mr-replay")
        second.arguments = args
        second.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try second.run()
        second.waitUntilExit()
        #expect(second.terminationStatus == 0)

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
