import Foundation
import Logging
@_spi(PerLine) import MetaRouter
import ReplayKit
import ServerTesting
import Synchronization
import TestSupport
import Testing

/// How a run starts and stops: the stop signal, task cancellation, and the embedded target.
@Suite struct RunLifecycleTests {
    @Test(.timeLimit(.minutes(1))) func stopSignalWakesEveryWaiter() async {
        let stop = StopSignal()
        let woken = WokenCount()
        // `Task.immediate` runs each waiter here, up to its first suspension: when it returns,
        // the waiter is parked in `requested()`, or has returned from it.
        let first = Task.immediate {
            defer { woken.value.add(1, ordering: .relaxed) }
            return await stop.requested()
        }
        let second = Task.immediate {
            defer { woken.value.add(1, ordering: .relaxed) }
            return await stop.requested()
        }
        #expect(woken.value.load(ordering: .relaxed) == 0, "a waiter must stay parked until the signal is raised")
        #expect(!stop.isRequested)
        #expect(stop.request() == 1)
        #expect(await first.value)
        #expect(await second.value)
        #expect(stop.request() == 2)
        #expect(await stop.requested(), "a raised signal answers at once")
    }

    @Test func cancellingAWaiterDoesNotRaiseTheSignal() async {
        let stop = StopSignal()
        let waiter = Task { await stop.requested() }
        waiter.cancel()
        #expect(await waiter.value == false)
        #expect(!stop.isRequested)
    }

    @Test func embeddedHostWithoutACollectorIsAUsageError() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writeFile("\(dir)/in.ndjson", #"{"type":"track","event":"E","anonymousId":"a"}"# + "\n")
        let config = try ConfigLoader.load(text: "ingestion:\n  host: embedded\n", file: "t.yaml", environment: [:])
        var options = RunOptions(inputs: ["\(dir)/in.ndjson"])
        options.stateDirectory = "\(dir)/state"
        options.progress = .off
        let runner = ReplayRunner(config: config, options: options, logger: Logger(label: "t"))
        await #expect(throws: UsageError.self) { try await runner.run() }
    }

    /// Cancelling the task that runs a replay is a stop request: the run ends as interrupted,
    /// with its checkpoint and report written, and a second run resumes where it stopped.
    @Test func cancellingTheRunTaskStopsItCleanly() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await RunTarget.run(dir: dir) { target in
            let (text, valid) = generateEvents(count: 10_000)
            try writeFile("\(dir)/in.ndjson", text)
            let config = try writeRunConfig(dir: dir, url: target.url, extra: "rate_limit:\n  events_per_second: 4000")
            let stored = try FileWatch(dir)  // the run writes its checkpoint under dir/state
            let run = Task { try await replay(config: config, inputs: ["\(dir)/in.ndjson"]) }
            // Cancel once the run's checkpoint (written every second) has passed settled events: the run
            // has delivered some and is mid-way at 4,000 events/s. (Events stored by the collector are
            // not yet settled by the run: a cancel then could land before any answer was taken.)
            let arrived = await stored.wait(
                until: { readCheckpointMirror("\(dir)/state")?.inputs.values.contains { $0.offset > 0 } == true },
                then: { run.cancel() })
            #expect(arrived == .held)
            let first = try await run.value
            #expect(first.status == .interrupted)
            #expect(first.events.delivered > 0)
            #expect(first.events.delivered < valid)
            #expect(FileManager.default.fileExists(atPath: "\(dir)/state/report.json"))
            let second = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
            #expect(second.status == .completed)
            let got = try await target.received()
            #expect(Set(got.events.keys).count == valid, "every event arrives, none lost at the stop")
        }
    }
}

/// How many waiters returned, shared with the waiters' tasks.
private final class WokenCount: Sendable {
    let value = Atomic(0)
}
