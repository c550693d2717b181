import Foundation
import JSONCore
import Testing

@testable import ReplayKit

/// Runs the real `mr-replay` binary and kills or signals it, then checks that a resumed run
/// ends with exactly the events an uninterrupted run delivers.
///
/// Serialized, and `.heavy`: the tests kill or signal a real process at timed points, so they
/// never overlap one another nor the other suites that run the whole pipeline.
@Suite(
    .serialized, .heavy,
    .enabled(if: hasBuiltBinary("mr-replay"), "needs the mr-replay binary next to the test bundle (swift build)"))
final class RunCrashTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    func launch(_ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = try builtBinary("mr-replay")
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        return p
    }

    func runToEnd(_ args: [String]) throws -> Int32 {
        let p = try launch(args)
        p.waitUntilExit()
        return p.terminationStatus
    }

    @Test func killNineAtSeveralPointsLosesNothing() async throws {
        let (text, valid) = generateEvents(count: 6000)
        // A broken line after every 1,000 lines: each killed run dead-letters some of them before
        // its checkpoint passes them, so they must be in the dead-letter file despite the kill.
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        var withBroken: [String] = []
        for (i, line) in lines.enumerated() {
            withBroken.append(line)
            if (i + 1) % 1000 == 0 { withBroken.append("broken line \((i + 1) / 1000)") }
        }
        let brokenCount = lines.count / 1000
        try writeFile("\(dir)/in.ndjson", withBroken.joined(separator: "\n") + "\nbroken line\n")

        // The reference: one uninterrupted run.
        let reference = try await RunTarget.start(dir: dir, name: "reference")
        try FileManager.default.createDirectory(atPath: "\(dir)/ref", withIntermediateDirectories: true)
        try seedState("\(dir)/ref/state")
        let refConfig = try writeRunConfig(dir: "\(dir)/ref", url: reference.url)
        let refReport = try await replay(config: refConfig, inputs: ["\(dir)/in.ndjson"])
        #expect(refReport.status == .completedWithDrops)
        let expected = try await reference.received()
        #expect(expected.events.count == valid)

        // The crashing runs: slowed by a rate limit so the kills land mid-run.
        let target = try await RunTarget.start(dir: dir, name: "crashy")
        try FileManager.default.createDirectory(atPath: "\(dir)/crash", withIntermediateDirectories: true)
        try seedState("\(dir)/crash/state")
        let config = try writeRunConfig(dir: "\(dir)/crash", url: target.url, extra: "rate_limit: { events_per_second: 2000 }")
        let args = ["run", "--config", config, "--quiet", "\(dir)/in.ndjson"]
        var kills = 0
        // Each kill lands after the run wrote a checkpoint (checkpoint.json changed), at several
        // points between two checkpoints (written every second); waiting for it, not for a fixed
        // time, keeps the test exact on a loaded machine.
        let mirror = "\(dir)/crash/state/checkpoint.json"
        for delay in [0.3, 0.05, 0.6, 0.9] {
            let before = try? FileManager.default.attributesOfItem(atPath: mirror)[.modificationDate] as? Date
            let p = try launch(args)
            for _ in 0..<400 where p.isRunning {
                let now = try? FileManager.default.attributesOfItem(atPath: mirror)[.modificationDate] as? Date
                if let now, now != before { break }
                try await Task.sleep(for: .milliseconds(25))
            }
            try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            if p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                kills += 1
            }
            p.waitUntilExit()
        }
        #expect(kills >= 2, "the kills must land while the run is going")
        // The final run completes: exit 1 when the broken last line is dead-lettered in it, 0 when a
        // killed run already settled it (then the last checkpoint passed everything).
        let finalExit = try runToEnd(args)
        #expect([0, 1].contains(finalExit), "final run exit \(finalExit)")
        let got = try await target.received()

        let missing = Set(expected.events.keys).subtracting(got.events.keys)
        let extra = Set(got.events.keys).subtracting(expected.events.keys)
        #expect(missing.count == 0, "lost events, for example \(missing.prefix(3))")
        #expect(extra.count == 0, "unexpected events, for example \(extra.prefix(3))")
        let differing = expected.events.filter { got.events[$0.key] != nil && got.events[$0.key] != $0.value }
        #expect(differing.count == 0, "events differ from the uninterrupted run (except sentAt), e.g. \(differing.keys.prefix(3))")
        let duplicates = got.copies.values.reduce(0) { $0 + $1 - 1 }
        // Duplicates are limited to what was in flight or delivered since the last checkpoint
        // (written every second) when each kill landed.
        #expect(duplicates <= kills * 2000, "duplicates: \(duplicates)")
        let report = try JSONValue(parsing: try String(contentsOfFile: "\(dir)/crash/state/report.json", encoding: .utf8))
        #expect(report.objectValue?["status"] == (finalExit == 1 ? "completed_with_drops" : "completed"))
        let dead = try String(contentsOfFile: "\(dir)/crash/state/dead-letter.ndjson", encoding: .utf8)
        #expect(dead.contains("\"raw\":\"broken line\""), "the broken line is dead-lettered")
        for k in 1...brokenCount {
            #expect(dead.contains("\"raw\":\"broken line \(k)\""), "broken line \(k) was lost from the dead-letter file")
        }
        let resumedPast = Int(report.objectValue?["events"]?.objectValue?["resumed_past"]?.encodedString ?? "0") ?? 0
        #expect(resumedPast > 0, "the final run resumed from a checkpoint written before a kill")
    }

    @Test func sigtermStopsCleanlyWithExit75AndTheNextRunFinishes() async throws {
        let (text, valid) = generateEvents(count: 2000)
        try writeFile("\(dir)/in.ndjson", text)
        let target = try await RunTarget.start(dir: dir)
        let config = try writeRunConfig(dir: dir, url: target.url, extra: "rate_limit: { events_per_second: 1500 }")
        let args = ["run", "--config", config, "--quiet", "\(dir)/in.ndjson"]
        let p = try launch(args)
        try await Task.sleep(for: .milliseconds(400))
        #expect(p.isRunning)
        p.terminate()
        let started = ContinuousClock.now
        p.waitUntilExit()
        #expect(ContinuousClock.now - started < .seconds(8), "a stop settles within a bounded time")
        #expect(p.terminationStatus == 75)
        let stopped = try #require(
            try JSONValue(parsing: try String(contentsOfFile: "\(dir)/state/report.json", encoding: .utf8)).objectValue)
        #expect(stopped["status"] == "interrupted")
        let events = try #require(stopped["events"]?.objectValue)
        let read = try #require(events["read"].flatMap { Int($0.encodedString) })
        let delivered = try #require(events["delivered"].flatMap { Int($0.encodedString) })
        let pending = try #require(events["pending"].flatMap { Int($0.encodedString) })
        #expect(read == delivered + pending, "read = delivered + pending when interrupted")

        #expect(try runToEnd(args) == 0)
        let got = try await target.received()
        #expect(got.events.count == valid)
    }

    @Test func exitCodesForFatalAndConfigErrors() async throws {
        let target = try await RunTarget.start(dir: dir, writeKey: "right")
        try writeFile("\(dir)/in.ndjson", generateEvents(count: 20).text)
        let wrong = try writeRunConfig(dir: dir, url: target.url, writeKey: "wrong")
        #expect(try runToEnd(["run", "--config", wrong, "--quiet", "\(dir)/in.ndjson"]) == 3)
        try writeFile("\(dir)/bad.yaml", "ingestion:\n  hostt: x\n")
        #expect(try runToEnd(["run", "--config", "\(dir)/bad.yaml", "\(dir)/in.ndjson"]) == 2)
        #expect(try runToEnd(["run", "--config", wrong, "--shard", "5/2", "\(dir)/in.ndjson"]) == 2)
        #expect(try runToEnd(["run", "--config", wrong, "\(dir)/missing.ndjson"]) == 2)
        _ = try await target.received()
    }
}
