import Collector
import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import Synchronization
import TestSupport
import Testing

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

    func launch(_ args: [String]) throws -> ChildProcess {
        try ChildProcess.launch(try builtBinary("mr-replay"), args, in: dir)
    }

    func runToEnd(_ args: [String]) async throws -> Int32 {
        try await launch(args).exit().status
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
        try await RunTarget.run(dir: dir, name: "reference") { reference in
            try FileManager.default.createDirectory(atPath: "\(dir)/ref", withIntermediateDirectories: true)
            try seedState("\(dir)/ref/state")
            let refConfig = try writeRunConfig(dir: "\(dir)/ref", url: reference.url)
            let refReport = try await replay(config: refConfig, inputs: ["\(dir)/in.ndjson"])
            #expect(refReport.status == .completedWithDrops)
            let expected = try await reference.received()
            #expect(expected.events.count == valid)

            // The crashing runs: slowed by a rate limit so the kills land mid-run.
            try await RunTarget.run(dir: dir, name: "crashy") { target in
                try FileManager.default.createDirectory(atPath: "\(dir)/crash", withIntermediateDirectories: true)
                try seedState("\(dir)/crash/state")
                let config = try writeRunConfig(dir: "\(dir)/crash", url: target.url, extra: "rate_limit: { events_per_second: 1000 }")
                let args = ["run", "--config", config, "--quiet", "\(dir)/in.ndjson"]
                var kills = 0
                // Each kill lands after the run wrote a checkpoint (checkpoint.json changed), once the
                // collector has stored a given number of events more: several distances past a checkpoint
                // (written every second, 1,000 events apart at this rate, so the 6,000 events leave a
                // resumed run room for the next kill point even when the watch notices a checkpoint late
                // on a loaded machine). The watch wakes on
                // each change of the mirror and of the collector's store, and kills from its own thread,
                // so a loaded machine does not move the kill points.
                let mirror = "\(dir)/crash/state/checkpoint.json"
                let watch = try FileWatch(dir)  // the collector's store, and the state directory under it
                for eventsPastCheckpoint in [600, 100, 1200, 1800] {
                    let before = Self.modified(mirror)
                    let p = try launch(args)
                    let mark = Mutex<Int?>(nil)  // the events stored when the mirror changed
                    _ = await watch.wait(
                        whileRunning: p.pid,
                        until: {
                            let stored = target.server.stats().events
                            return mark.withLock { mark in
                                if mark == nil, let now = Self.modified(mirror), now != before { mark = stored }
                                return mark.map { stored >= $0 + eventsPastCheckpoint } ?? false
                            }
                        }, then: { p.send(SIGKILL) })
                    if await p.exit().killed(by: SIGKILL) { kills += 1 }
                }
                #expect(kills >= 2, "the kills must land while the run is going")
                // The final run completes: exit 1 when the broken last line is dead-lettered in it, 0 when a
                // killed run already settled it (then the last checkpoint passed everything).
                let finalExit = try await runToEnd(args)
                #expect([0, 1].contains(finalExit), "final run exit \(finalExit)")
                let got = try await target.received()

                let missing = Set(expected.events.keys).subtracting(got.events.keys)
                let extra = Set(got.events.keys).subtracting(expected.events.keys)
                #expect(missing.count == 0, "lost events, for example \(missing.prefix(3))")
                #expect(extra.count == 0, "unexpected events, for example \(extra.prefix(3))")
                let differing = expected.events.filter { got.events[$0.key] != nil && got.events[$0.key] != $0.value }
                #expect(differing.count == 0, "events differ from the uninterrupted run (except sentAt), e.g. \(differing.keys.prefix(3))")
                let duplicates = got.copies.values.reduce(0) { $0 + $1 - 1 }
                // Duplicates are limited to what was in flight when each kill landed: at most one batch
                // per lane (concurrency 4). What was acknowledged since the last checkpoint is in the
                // acknowledgment log, which the next run folds in.
                #expect(duplicates <= kills * 4 * runConfigMaxEvents, "duplicates: \(duplicates)")
                let report = try JSONValue(parsing: try String(contentsOfFile: "\(dir)/crash/state/report.json", encoding: .utf8))
                // Every line the final run delivered was logged as acknowledged (one event per line
                // here); a last killed run that went on to the end leaves the final run nothing to send.
                let acks = report.objectValue?["acknowledgments"]?.objectValue
                let linesLogged = Int(acks?["lines_logged"]?.encodedString ?? "") ?? -1
                let delivered = Int(report.objectValue?["events"]?.objectValue?["delivered"]?.encodedString ?? "") ?? -1
                #expect(delivered >= 0 && linesLogged >= delivered, "logged \(linesLogged) lines for \(delivered) delivered events")
                #expect(report.objectValue?["status"] == (finalExit == 1 ? "completed_with_drops" : "completed"))
                let dead = try String(contentsOfFile: "\(dir)/crash/state/dead-letter.ndjson", encoding: .utf8)
                #expect(dead.contains("\"raw\":\"broken line\""), "the broken line is dead-lettered")
                for k in 1...brokenCount {
                    #expect(dead.contains("\"raw\":\"broken line \(k)\""), "broken line \(k) was lost from the dead-letter file")
                }
                let resumedPast = Int(report.objectValue?["events"]?.objectValue?["resumed_past"]?.encodedString ?? "0") ?? 0
                #expect(resumedPast > 0, "the final run resumed from a checkpoint written before a kill")
            }
        }
    }

    @Test func sigtermStopsCleanlyWithExit75AndTheNextRunFinishes() async throws {
        let (text, valid) = generateEvents(count: 2000)
        try writeFile("\(dir)/in.ndjson", text)
        try await RunTarget.run(dir: dir) { target in
            let config = try writeRunConfig(dir: dir, url: target.url, extra: "rate_limit: { events_per_second: 1500 }")
            let args = ["run", "--config", config, "--quiet", "\(dir)/in.ndjson"]
            let watch = try FileWatch(dir)  // the collector stores what arrives in dir/collected.ndjson
            let p = try launch(args)
            // SIGTERM once a quarter of the events arrived: the run is sending, with more to send.
            let signalled = Mutex<ContinuousClock.Instant?>(nil)
            let sending = await watch.wait(whileRunning: p.pid, until: { target.server.stats().events >= 500 }) {
                signalled.withLock { $0 = .now }
                p.send(SIGTERM)
            }
            #expect(sending == .held, "the stop must land mid-run")
            let exit = await p.exit()
            if let signalled = signalled.withLock({ $0 }) {
                #expect(ContinuousClock.now - signalled < .seconds(8), "a stop settles within a bounded time")
            }
            #expect(exit == .init(status: 75, signalled: false))
            let stopped = try #require(
                try JSONValue(parsing: try String(contentsOfFile: "\(dir)/state/report.json", encoding: .utf8)).objectValue)
            #expect(stopped["status"] == "interrupted")
            let events = try #require(stopped["events"]?.objectValue)
            let read = try #require(events["read"].flatMap { Int($0.encodedString) })
            let delivered = try #require(events["delivered"].flatMap { Int($0.encodedString) })
            let pending = try #require(events["pending"].flatMap { Int($0.encodedString) })
            #expect(read == delivered + pending, "read = delivered + pending when interrupted")

            #expect(try await runToEnd(args) == 0)
            let got = try await target.received()
            #expect(got.events.count == valid)
        }
    }

    /// The second-signal rule (`SecondSignalExit`): a signal while the run settles after the
    /// first exits 75 at once, without waiting for the in-flight batches or writing a report.
    @Test func aSecondSignalWhileSettlingExits75AtOnce() async throws {
        try writeFile("\(dir)/in.ndjson", generateEvents(count: 2000).text)
        // An endpoint that never answers: what the run sends stays in flight, so after the first
        // signal the run is settling (for up to its 5 s stop grace) when the second one comes.
        let endpoint = try await SilentEndpoint.start(recordingIn: dir)
        let config = try writeRunConfig(dir: dir, url: endpoint.url)
        let watch = try FileWatch(dir)  // wakes on dir/arrivals/<n> and on dir/stderr.txt
        let p = try ChildProcess.launch(
            try builtBinary("mr-replay"), ["run", "--config", config, "--quiet", "\(dir)/in.ndjson"], in: dir,
            stderr: "\(dir)/stderr.txt")
        let arrivals = "\(dir)/arrivals"
        let inFlight = await watch.wait(
            whileRunning: p.pid, until: { !((try? FileManager.default.contentsOfDirectory(atPath: arrivals)) ?? []).isEmpty },
            then: { p.send(SIGTERM) })
        #expect(inFlight == .held, "a request must be in flight when the first signal lands")
        // A signal is not queued: the second is sent once the first was taken (its line is written).
        let stderrPath = "\(dir)/stderr.txt"
        let stopping = await watch.wait(
            whileRunning: p.pid,
            until: { ((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "").contains("mr-replay: stopping:") },
            then: { p.send(SIGINT) })
        #expect(stopping == .held, "the first signal starts the stop")
        let second = ContinuousClock.now
        let exit = await p.exit()
        #expect(ContinuousClock.now - second < .seconds(3), "a second signal does not wait for the run")
        #expect(exit == .init(status: 75, signalled: false))
        let stderr = try String(contentsOfFile: stderrPath, encoding: .utf8)
        #expect(stderr.contains("mr-replay: stopping: settling in-flight batches (signal again to exit now)"), "\(stderr)")
        #expect(stderr.contains("mr-replay: second signal, exiting now"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/state/report.json"), "it exited before the report")
        try await endpoint.stop()
    }

    /// When `path` was last changed, or nil when it does not exist.
    static func modified(_ path: String) -> Date? {
        try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
    }

    @Test func exitCodesForFatalAndConfigErrors() async throws {
        try await RunTarget.run(dir: dir, writeKey: "right") { target in
            try writeFile("\(dir)/in.ndjson", generateEvents(count: 20).text)
            let wrong = try writeRunConfig(dir: dir, url: target.url, writeKey: "wrong")
            #expect(try await runToEnd(["run", "--config", wrong, "--quiet", "\(dir)/in.ndjson"]) == 3)
            try writeFile("\(dir)/bad.yaml", "ingestion:\n  hostt: x\n")
            #expect(try await runToEnd(["run", "--config", "\(dir)/bad.yaml", "\(dir)/in.ndjson"]) == 2)
            #expect(try await runToEnd(["run", "--config", wrong, "--shard", "5/2", "\(dir)/in.ndjson"]) == 2)
            #expect(try await runToEnd(["run", "--config", wrong, "\(dir)/missing.ndjson"]) == 2)
            _ = try await target.received()
        }
    }
}
