import Foundation
import ReplayKit
import TestSupport
import Testing

/// What a person meets first: `--version`, `--help`, and counts written for people.
@Suite struct FrontDoorCommandLineTests {

    @Test(.enabled(if: hasBuiltBinary("mr-replay")))
    func versionNamesTheReleaseAndTheCommitBuilt() throws {
        let run = try runReplayBinary(["--version"], in: NSTemporaryDirectory())
        #expect(run.code == 0, "\(run.err)")
        let line = run.out.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("mr-replay \(ReplayConfig.toolVersion) (commit "), "\(line)")
        // Built from a git work tree (as the tests are), the commit is HEAD's.
        if let head = try? gitHead(), !head.isEmpty {
            #expect(line == "mr-replay \(ReplayConfig.toolVersion) (commit \(head))", "\(line)")
        }
    }

    @Test(.enabled(if: hasBuiltBinary("mr-replay")))
    func helpShowsEveryExitCodeOnOneUnwrappedRow() throws {
        let run = try runReplayBinary(["--help"], in: NSTemporaryDirectory(), env: ["COLUMNS": "80"])
        #expect(run.code == 0)
        let rows = run.out.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(rows.firstIndex(of: "Exit codes:"))
        let codes = [ExitStatus.delivered, ExitStatus.deadLettered, ExitStatus.usage, ExitStatus.refused, ExitStatus.interrupted]
        for (offset, code) in codes.enumerated() {
            let row = rows[start + 1 + offset]
            #expect(row.hasPrefix("  \(code) "), "row \(offset + 1) of the exit codes: \(row)")
            #expect(row.count <= 78, "\(row)")
        }
        // The row after the last code is the blank line before USAGE, not a wrapped tail.
        #expect(rows[start + 1 + codes.count].isEmpty, "\(rows[start + 1 + codes.count])")
    }

    @Test func countsAreGroupedByThousands() {
        #expect(CountText.of(0) == "0")
        #expect(CountText.of(999) == "999")
        #expect(CountText.of(1_000) == "1,000")
        #expect(CountText.of(60_000) == "60,000")
        #expect(CountText.of(1_234_567) == "1,234,567")
        #expect(CountText.of(-1_000) == "-1,000")
        #expect(CountText.of(Int.min) == "-9,223,372,036,854,775,808")
    }

    @Test func theRunSummaryGroupsItsCounts() {
        var report = RunReport()
        report.events.read = 60_000
        report.events.delivered = 59_990
        report.events.deadLettered = 10
        report.batches.sent = 1_200
        report.deadLetterReasons = ["too_large": 1_500]
        let summary = report.summary
        #expect(summary.contains("events: 60,000 read, 59,990 delivered, 10 dead-lettered"), "\(summary)")
        #expect(summary.contains("batches: 1,200 sent"), "\(summary)")
        #expect(summary.contains("too_large=1,500"), "\(summary)")
    }

    private func gitHead() throws -> String {
        let run = try Subprocess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["git", "-C", packageRoot, "rev-parse", "--short=12", "HEAD"],
            directory: packageRoot, environment: ProcessInfo.processInfo.environment)
        return run.code == 0 ? run.out.trimmingCharacters(in: .whitespacesAndNewlines) : ""
    }
}
