import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

/// `autoStart: false`: no connection and nothing sent until `start()`.
@Suite struct ClientAutoStartTests {
    @Test func noConnectionUntilStartThenEventsArrive() async throws {
        let server = CountingHTTPServer()
        let host = try await server.start()
        let clock = TestClock()
        let client = try MetaRouterClient(
            options: clientOptions {
                $0.ingestionHost = host
                $0.autoStart = false
                $0.delivery.maxBatchEvents = 1  // an event handed to the engine would go out at once
            }, clock: clock)  // the client's own HTTP transport
        await startRunning(client)
        for i in 0..<5 { await client.track("E\(i)") }
        await waitForPumpToPark(client)
        await client.flush()
        clock.advance(by: .seconds(30))  // past several flush intervals
        await client.drain()  // would wait for delivery if anything had been handed over
        #expect(server.connections == 0)
        #expect(server.events.isEmpty)
        #expect(await client.stats.queued == 5)
        #expect(await client.stats.inFlight == 0)

        await client.start()
        await client.drain()
        #expect(server.connections >= 1)
        #expect(server.events.map { $0["event"]?.stringValue } == (0..<5).map { "E\($0)" })
        await client.shutdown()
        await server.stop()
    }

    @Test func aShutdownBeforeStartSendsNothingAndKeepsTheEventsOnDisk() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = CountingHTTPServer()
        let host = try await server.start()
        let client = try MetaRouterClient(
            options: clientOptions {
                $0.ingestionHost = host
                $0.autoStart = false
                $0.diskQueuePath = dir + "/queue.v1.json"
            }, clock: TestClock())
        await startRunning(client)
        for i in 0..<3 { await client.track("E\(i)") }
        await client.shutdown()
        #expect(server.connections == 0)
        let saved = try DiskQueue(path: dir + "/queue.v1.json", maxAge: nil).load().events
        #expect(saved.map(\.event) == ["E0", "E1", "E2"])
        await server.stop()
    }
}
