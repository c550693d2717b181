import Foundation
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

/// Every wait of the client ends when its caller's task is cancelled, as the engine's do: a
/// cancelled caller never stays parked (without it, each test here would hang to its limit).
@Suite(.timeLimit(.minutes(1))) struct ClientCancellationTests {
    @Test func aDrainWaitingForRunToStartReturnsWhenCancelled() async throws {
        let client = try MetaRouterClient(options: clientOptions(), transport: ScriptedTransport(), clock: TestClock())
        let drain = Task { await client.drain() }
        drain.cancel()
        await drain.value
        // The client itself was neither started nor stopped: it still runs and delivers.
        let run = Task { try await client.run() }
        await client.track("E")
        await client.drain()
        #expect(await client.stats.delivered == 1)
        await client.shutdown()
        try await run.value
    }

    @Test func aDrainWaitingForAnswersReturnsWhenCancelledAndDeliveryGoesOn() async throws {
        let transport = ScriptedTransport(holdingAll: true)
        let client = try MetaRouterClient(
            options: clientOptions { $0.delivery.maxBatchEvents = 1 }, transport: transport, clock: TestClock())
        _ = await startRunning(client)
        await client.track("E")
        await transport.waitForArrivals(1)
        let drain = Task { await client.drain() }
        drain.cancel()
        await drain.value
        #expect(await client.stats.inFlight == 1, "only the wait ended: the event is still in flight")
        transport.release()
        await client.drain()
        #expect(transport.events.map { $0["event"]?.stringValue } == ["E"])
        await client.shutdown()
    }

    @Test func aShutdownWaitingForRunReturnsWhenCancelledAndTheShutdownGoesOn() async throws {
        let transport = ScriptedTransport(holdingAll: true)
        let client = try MetaRouterClient(
            options: clientOptions { $0.delivery.maxBatchEvents = 1 }, transport: transport, clock: TestClock())
        let run = await startRunning(client)
        await client.track("E")
        await transport.waitForArrivals(1)
        let shutdown = Task { await client.shutdown() }
        shutdown.cancel()
        await shutdown.value
        transport.release()
        try await run.value  // the shutdown went on: run() returned
        #expect(transport.events.map { $0["event"]?.stringValue } == ["E"])
    }
}
