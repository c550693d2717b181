import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// File names, run ids and the `reports.keep` setting of the run history.
@Suite struct RunHistoryNameTests {
    @Test func fileNamesAreTheUTCStartInBasicFormatAndTheRunId() {
        #expect(RunHistory.fileName(startedAt: "2026-11-23T19:15:00.123Z", runId: "3f9a2c1b") == "20261123T191500.123Z-3f9a2c1b.json")
        #expect(RunHistory.fileName(startedAt: "2026-11-23T19:15:00Z", runId: "00000001") == "20261123T191500.000Z-00000001.json")
        #expect(RunHistory.isReportFile("20261123T191500.123Z-3f9a2c1b.json"))
        for other in [
            "report.json", "notes.json", "20261123T191500Z-3f9a2c1b.json", ".20261123T191500.123Z-3f9a2c1b.json.tmp",
            "2026112xT191500.123Z-3f9a2c1b.json",
        ] {
            #expect(!RunHistory.isReportFile(other), "\(other)")
        }
        // Names sort in start order, across days and within a second.
        let starts = ["2026-11-23T23:59:59.999Z", "2026-11-24T00:00:00.001Z", "2026-11-24T00:00:00.010Z", "2026-11-24T00:00:01.000Z"]
        let names = starts.map { RunHistory.fileName(startedAt: $0, runId: "ffffffff") }
        #expect(names.reversed().sorted() == names)
    }

    @Test func runIdsAreEightHexDigitsFromTheGenerator() {
        struct Fixed: RandomNumberGenerator {
            var value: UInt64
            mutating func next() -> UInt64 { value }
        }
        var small = Fixed(value: 0x2a)
        var large = Fixed(value: 0xffff_ffff_ffff_ffff)
        let a = RunHistory.makeRunId(using: &small)
        let b = RunHistory.makeRunId(using: &large)
        #expect(a.count == 8 && b.count == 8)
        #expect(a.allSatisfy(\.isHexDigit) && a == a.lowercased() && b == "ffffffff")
        #expect(a != b)
        #expect(Set((0..<50).map { _ in RunHistory.makeRunId() }).count == 50)
    }

    @Test func reportsKeepIsReadCheckedAndRecorded() throws {
        #expect(try testConfig().reports.keep == 30)
        let three = try testConfig("reports:\n  keep: 3\n")
        #expect(three.reports.keep == 3)
        #expect(three.reportSettings["reports.keep"] == "3")
        #expect(try testConfig("reports: { keep: 0 }").reports.keep == 0)
        #expect(throws: ConfigError.self) { try testConfig("reports:\n  keep: -1\n") }
        do {
            _ = try testConfig("reports:\n  kep: 3\n")
            Issue.record("an unknown key must be refused")
        } catch {
            #expect("\(error)".contains("reports.kep"), "\(error)")
        }
    }
}

/// Real runs write their history, prune it, and `status` lists it.
@Suite(.serialized, .heavy) final class RunHistoryRunTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    var reports: String { "\(dir)/state/reports" }

    func historyFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: reports).filter { $0.hasSuffix(".json") }.sorted()
    }

    @Test func eachRunWritesItsReportAndTheOldestArePruned() async throws {
        try await RunTarget.run(dir: dir) { target in
            let input = "\(dir)/in.ndjson"
            let config = try writeRunConfig(dir: dir, url: target.url, extra: "reports:\n  keep: 2")
            try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
            try writeFile("\(reports)/notes.json", "{}")  // not a history file: never pruned

            var runs: [RunReport] = []
            for round in 0..<3 {
                try writeFile(input, generateEvents(count: 30 * (round + 1), seed: 5).text)  // the file grows
                runs.append(try await replay(config: config, inputs: [input]))
            }
            _ = try await target.received()

            #expect(runs.map(\.events.delivered) == [30, 30, 30])
            #expect(Set(runs.map(\.runId)).count == 3)
            let expected = runs.suffix(2).map { RunHistory.fileName(startedAt: $0.startedAt, runId: $0.runId) }
            #expect(try historyFiles() == (expected + ["notes.json"]).sorted())
            // The newest history file is the same report as report.json.
            let latest = try Data(contentsOf: URL(fileURLWithPath: "\(reports)/\(expected[1])"))
            #expect(latest == (try Data(contentsOf: URL(fileURLWithPath: "\(dir)/state/report.json"))))
            let decoded = try JSONDecoder().decode(RunReport.self, from: latest)
            #expect(decoded.runId == runs[2].runId && decoded.schemaVersion == RunReport.currentSchemaVersion)
            #expect(decoded.settings["reports.keep"] == "2")

            let status = try StatusReader.read(stateDirectory: "\(dir)/state")
            #expect(status.recentRuns.map(\.runId) == [runs[2].runId, runs[1].runId])
            #expect(status.recentRuns.map(\.delivered) == [30, 30])
            #expect(status.recentRuns.first?.exitCode == 0 && status.recentRuns.first?.status == "completed")
            #expect(try StatusReader.read(stateDirectory: "\(dir)/state", runs: 1).recentRuns.count == 1)
            let text = StatusReader.text(status)
            #expect(text.contains("recent runs (newest first):"))
            let line = try #require(text.split(separator: "\n").first { $0.contains(runs[2].runId) })
            #expect(line.contains("completed (exit 0)") && line.contains("30 delivered, 0 dead-lettered"), "\(line)")
            #expect(line.hasPrefix("  " + runs[2].startedAt.prefix(19) + "Z"), "\(line)")
        }
    }

    @Test func keepZeroWritesNoHistoryAndAFailingHistoryIsAWarning() async throws {
        try await RunTarget.run(dir: dir) { target in
            let input = "\(dir)/in.ndjson"
            try writeFile(input, generateEvents(count: 10).text)
            let none = try await replay(config: try writeRunConfig(dir: dir, url: target.url, extra: "reports: { keep: 0 }"), inputs: [input])
            #expect(none.events.delivered == 10)
            #expect(!FileManager.default.fileExists(atPath: reports))
            #expect(FileManager.default.fileExists(atPath: "\(dir)/state/report.json"))

            // reports/ cannot be created: the run still ends with its report, which says so.
            try writeFile(reports, "a file where the directory should be")
            try writeFile(input, generateEvents(count: 20).text)
            let blocked = try await replay(config: try writeRunConfig(dir: dir, url: target.url), inputs: [input])
            _ = try await target.received()
            #expect(blocked.status == .completed)
            let onDisk = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: "\(dir)/state/report.json")))
            #expect(onDisk.warnings.contains { $0.hasPrefix("cannot write the run history in \(reports)") }, "\(onDisk.warnings)")
            #expect(try StatusReader.read(stateDirectory: "\(dir)/state").recentRuns == [])
        }
    }
}
