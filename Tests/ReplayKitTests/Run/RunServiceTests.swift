import Foundation
import JSONCore
import Logging
import MetaRouter
import ReplayKit
import ServerTesting
import ServiceLifecycle
import ServiceLifecycleTestKit
import TestSupport
import Testing

/// A run as a Service (`RunService`) in the `ServiceGroup` that `mr-replay` runs it in.
@Suite struct RunServiceTests {
    /// A graceful shutdown of the group is the run's stop request: the run stops reading,
    /// settles, and writes its checkpoint and report; a second run resumes where it stopped.
    @Test(.timeLimit(.minutes(2))) func aGracefulShutdownOfTheGroupStopsTheRunWhichWritesItsReport() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await RunTarget.run(dir: dir) { target in
            let (text, valid) = generateEvents(count: 10_000)
            try writeFile("\(dir)/in.ndjson", text)
            let config = try writeRunConfig(dir: dir, url: target.url, extra: "rate_limit:\n  events_per_second: 4000")
            let stored = try FileWatch(dir)  // the collector stores what arrives in dir/collected.ndjson
            let first = try await testGracefulShutdown { trigger in
                // A child task: the group inherits the graceful shutdown that `trigger` raises.
                async let run = replay(config: config, inputs: ["\(dir)/in.ndjson"])
                let arrived = await stored.wait(
                    until: { target.server.stats().events > 0 }, then: { trigger.triggerGracefulShutdown() })
                #expect(arrived == .held)
                return try await run
            }
            #expect(first.status == .interrupted)
            #expect(first.events.delivered > 0)
            #expect(first.events.delivered < valid)
            let written = try JSONValue(parsing: try String(contentsOfFile: "\(dir)/state/report.json", encoding: .utf8))
            #expect(written.objectValue?["status"] == "interrupted")
            let second = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
            #expect(second.status == .completed)
            let got = try await target.received()
            #expect(Set(got.events.keys).count == valid, "every event arrives, none lost at the stop")
        }
    }

    /// The work's outcome is kept and returned: what it returned, or what it threw, and a
    /// graceful shutdown raises its stop signal once.
    @Test(.timeLimit(.minutes(1))) func theWorksOutcomeIsKeptAndAShutdownIsItsStop() async throws {
        let failing = RunService<Int> { _ in throw UsageError("no") }
        await #expect(throws: UsageError.self) { _ = try await failing.runInGroup(logger: Logger(label: "t")) }
        #expect(throws: UsageError.self) { _ = try failing.outcome?.get() }

        let stop = StopSignal()
        let waiting = RunService(stop: stop) { stop in await stop.requested() ? 75 : 0 }
        let code = try await testGracefulShutdown { trigger in
            async let code = waiting.runInGroup(logger: Logger(label: "t"))
            trigger.triggerGracefulShutdown()
            return try await code
        }
        #expect(code == 75)
        #expect(stop.isRequested)
        #expect(try waiting.outcome?.get() == 75)
    }
}
