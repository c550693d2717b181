import Foundation
import Logging
import MetaRouterTesting
import ServiceLifecycle
import Testing
import Timestamps

@_spi(PerLine) @testable import MetaRouter
@_spi(PerLine) @testable import MetaRouterDelivery

/// `MetaRouterClient` as a `Service`: nothing starts before `run()`, calls made before it are
/// kept, and a graceful shutdown, a cancellation or `shutdown()` end the run the same way.
@Suite struct ClientLifecycleTests {
    /// Writes a snapshot of `names` (track events of one identity) to `path`.
    private func writeSnapshot(_ names: [String], to path: String, clock: TestClock) throws {
        let events = names.enumerated().map { k, name in
            var e = Event.track(name)
            e.messageId = "saved-\(k)"
            e.anonymousId = "a"
            e.timestamp = Timestamp.iso8601(clock.wallClock)
            return e
        }
        try DiskQueue(path: path).save(events)
    }

    @Test("creating a client starts nothing; shutdown() without run() delivers saved and new events in order")
    func nothingStartsBeforeRun() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let clock = TestClock()
        try writeSnapshot(["Saved1", "Saved2"], to: queuePath, clock: clock)
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(
            options: clientOptions { $0.diskQueuePath = queuePath },
            transport: transport, clock: clock)
        await client.track("New")
        await client.flush()  // not running: nothing happens
        let queued = await client.stats.queued
        #expect(queued == 3, "the saved events and the new one wait in the queue")
        #expect(transport.requests.isEmpty)
        #expect(clock.sleeperCount == 0, "no flush timer before run()")
        #expect(FileManager.default.fileExists(atPath: queuePath), "the snapshot stays until the client runs")

        await client.shutdown()
        #expect(transport.events.map { $0["event"]?.stringValue } == ["Saved1", "Saved2", "New"])
        #expect(!FileManager.default.fileExists(atPath: queuePath), "everything was delivered")
        await client.track("Late")
        let stats = await client.stats
        #expect(stats.delivered == 3)
        #expect(stats.droppedDisabled == 1, "calls after shutdown are dropped")
    }

    @Test("a service group runs the client; its graceful shutdown delivers and ends the run")
    func serviceGroup() async throws {
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(
            options: clientOptions { $0.flushInterval = .seconds(3600) },
            transport: transport, clock: TestClock())
        await client.track("Before Run")
        let group = ServiceGroup(services: [client], logger: Logger(label: "test.group"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await client.drain()  // waits for run() to start, then for the outcome
            #expect(transport.events.map { $0["event"]?.stringValue } == ["Before Run"])
            await client.track("At Shutdown")  // a partial batch: sent by the shutdown, not the timer
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(transport.events.map { $0["event"]?.stringValue } == ["Before Run", "At Shutdown"])
        let phase = await client.phase
        #expect(phase == .shutDown)
    }

    @Test("cancelling the task that runs the client shuts it down and keeps undelivered events on disk")
    func cancellation() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let client = try MetaRouterClient(
            options: clientOptions { $0.diskQueuePath = queuePath },
            transport: ScriptedTransport(status: 401), clock: TestClock())
        let running = await startRunning(client)
        await client.track("E0")
        await client.track("E1")
        running.cancel()
        try await running.value
        let phase = await client.phase
        #expect(phase == .shutDown)
        let saved = try DiskQueue(path: queuePath, maxAge: nil).load()
        #expect(saved.events.map(\.event) == ["E0", "E1"])
    }

    @Test("shutdown() ends a running client and returns once the run has; run() runs once")
    func shutdownEndsRun() async throws {
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(options: clientOptions(), transport: transport, clock: TestClock())
        let running = await startRunning(client)
        await client.track("One")
        await client.shutdown()
        let phase = await client.phase
        #expect(phase == .shutDown)
        try await running.value
        #expect(transport.events.map { $0["event"]?.stringValue } == ["One"])
        try await client.run()  // returns at once
        await client.shutdown()  // does nothing
        #expect(transport.requests.count == 1)
    }

    @Test("drain() before run() waits for the run, then for the outcomes")
    func drainWaitsForRun() async throws {
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(options: clientOptions(), transport: transport, clock: TestClock())
        await client.track("Queued")
        let drained = Task {
            await client.drain()
            return transport.requests.count  // what had been answered when drain() returned
        }
        await client.waitForDrainToWaitForRun()
        #expect(transport.arrivals == 0, "nothing is sent before run()")
        let running = await startRunning(client)
        #expect(await drained.value == 1, "drain() returned only once run() had delivered the queued event")
        #expect(transport.events.map { $0["event"]?.stringValue } == ["Queued"])
        await client.shutdown()
        try await running.value
    }
}
