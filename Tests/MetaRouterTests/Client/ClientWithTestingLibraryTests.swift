import MetaRouter
import MetaRouterTesting
import Testing

/// The example of docs/server-usage.md ("Testing your integration"), through the public API
/// alone: what an app's own tests can do with `MetaRouterTesting`.
@Suite struct ClientWithTestingLibraryTests {
    @Test func aRetriedEventIsSentAgainWhenTheClockReachesTheRetry() async throws {
        let options = ClientOptions(writeKey: "k", ingestionHost: "http://127.0.0.1:9")
        let clock = TestClock()
        let transport = ScriptedTransport { index, _ in index == 0 ? .status(503, headers: []) : nil }
        let client = try MetaRouterClient(options: options, transport: transport, clock: clock)
        let running = Task { try await client.run() }
        await clock.waitForSleepers(1)  // run() runs: its flush timer waits
        await client.track("Signed Up")
        await client.flush()
        await transport.waitForRequests(1)
        await clock.waitForSleepers(2)  // the retry's wait and the flush timer
        #expect(transport.requests.map(\.statusCode) == [503])
        clock.advance(by: .seconds(1))
        await transport.waitForRequests(2)
        #expect(transport.events.map { $0["event"]?.stringValue } == ["Signed Up", "Signed Up"])
        await client.shutdown()
        try await running.value
        #expect(await client.stats.delivered == 1)
    }
}
