import Foundation
import GzipCodec
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

@_spi(PerLine) @testable import MetaRouterDelivery

@Suite struct EngineBatchingTests {
    @Test func deliversInBatchesWithHeadersURLAndWellFormedBodies() async throws {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let events = (0..<250).map { testEvent("m\($0)", tag: UInt64($0)) }
        let (engine, stats, sink) = await runEngine(config { $0.tracing = true }, transport, clock: clock, events: events)
        #expect(transport.requests.map(\.events.count) == [100, 100, 50])
        #expect(stats.eventsDelivered == 250)
        #expect(stats.batchesSent == 3)
        #expect(stats.batchesSucceeded == 3)
        #expect(stats.responses == ["200": 3])
        #expect(Set(sink.all.map(\.tag)) == Set(0..<250))
        #expect(sink.all.count == 250)
        #expect(sink.all.allSatisfy { $0.result == .delivered })
        let r = transport.requests[0]
        #expect(r.request.url == "http://127.0.0.1:9/base/v1/batch")
        #expect(r.request.header("authorization") == "Basic " + Data("wk-123:".utf8).base64EncodedString())
        #expect(r.request.header("Content-Type") == "application/json")
        #expect(r.request.header("Trace") == "true")
        #expect(r.request.header("Content-Encoding") == nil)
        #expect(r.request.timeout == .seconds(15))
        for r in transport.requests { expectWellFormedBody(r, writeKey: "wk-123") }
        #expect(transport.requests.flatMap(\.messageIds) == events.map(\.messageId), "one lane keeps submit order")
        let stopCause = await engine.stopCause
        #expect(stopCause == nil)
    }

    @Test func byteCapIsMeasuredOnTheRealBody() async throws {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let c = config {
            $0.maxBatchBytes = 2_000
            $0.maxEventBytes = 900
            $0.concurrency = 3
        }
        let events = (0..<120).map { testEvent("m\($0)", user: "u\($0 % 7)", padding: ($0 * 37) % 700) }
        let (_, stats, sink) = await runEngine(c, transport, clock: clock, events: events)
        #expect(stats.eventsDelivered == 120)
        #expect(sink.all.count == 120)
        let encoder = BatchEncoder(writeKey: "wk-123")
        let byId = Dictionary(uniqueKeysWithValues: events.map { ($0.messageId, encoder.sentSize(of: $0)) })
        var sawNearlyFull = false
        for r in transport.requests {
            #expect(r.body.count <= 2_000)
            expectWellFormedBody(r, writeKey: "wk-123")
            let sizes = r.messageIds.map { byId[$0]! }
            #expect(r.body.count == BatchEncoder.bodySize(eventSizes: sizes.reduce(0, +), count: sizes.count), "the computed size is the real size")
            if r.body.count > 1_000 { sawNearlyFull = true }
        }
        #expect(sawNearlyFull, "batches are filled up to the byte cap")
    }

    @Test func eventOverMaxEventBytesIsGivenUpBeforeSending() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let c = config { $0.maxEventBytes = 300 }
        let events = [testEvent("small"), testEvent("big", padding: 400), testEvent("small2")]
        let (_, stats, sink) = await runEngine(c, transport, clock: clock, events: events)
        #expect(transport.requests.flatMap(\.messageIds) == ["small", "small2"])
        guard case .gaveUp(let reason, _)? = sink.results()["big"] else { Issue.record("big not given up"); return }
        #expect(reason == .tooLarge)
        #expect(stats.givenUpReasons == ["too_large": 1])
        #expect(stats.eventsDelivered == 2)
    }

    @Test func gzipBodyDecodesBack() async throws {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let events = (0..<20).map { testEvent("m\($0)", padding: 50) }
        _ = await runEngine(config { $0.gzip = true }, transport, clock: clock, events: events)
        let r = try #require(transport.requests.first)
        #expect(r.request.header("Content-Encoding") == "gzip")
        #expect(Array(r.request.body.prefix(2)) == [0x1f, 0x8b], "gzip magic")
        #expect(r.request.body.count < r.body.count)
        let unzipped = try GzipCodec.decompress(r.request.body)
        #expect(unzipped == r.body)
        expectWellFormedBody(r, writeKey: "wk-123")
        #expect(r.events.count == 20)
    }

    @Test func perIdentityOrderingUnderConcurrencyAndRetries() async {
        let clock = TestClock(advancing: .automatically)
        // Every third request fails with 503, so lanes retry while others proceed.
        let transport = ScriptedTransport(clock: clock) { i, _ in
            i % 3 == 1 ? .status(503, headers: []) : .status(200, headers: [])
        }
        let c = config {
            $0.concurrency = 4
            $0.maxBatchEvents = 7
            $0.breaker.failureThreshold = 1000
        }
        let users = (0..<10).map { "user-\($0)" }
        let events = (0..<300).map { testEvent("m\($0)", user: users[($0 * 7) % 10]) }
        let (_, stats, _) = await runEngine(c, transport, clock: clock, events: events)
        #expect(stats.eventsDelivered == 300)
        #expect(stats.batchesRetried > 0)
        var delivered: [String: [String]] = [:]
        for r in transport.requests where r.statusCode == 200 {
            for e in r.events { delivered[e["anonymousId"]!.stringValue!, default: []].append(e["messageId"]!.stringValue!) }
        }
        for u in users {
            let submitted = events.filter { $0.orderingKey == u }.map(\.messageId)
            #expect(delivered[u] == submitted, "order of \(u)")
        }
        #expect(Set(transport.requests.map { $0.events.first?["anonymousId"]?.stringValue }).count > 1)
    }

    @Test func rateLimiterSpacesRequests() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let c = config {
            $0.maxBatchEvents = 1
            $0.requestsPerSecond = 2
        }
        _ = await runEngine(c, transport, clock: clock, events: (0..<5).map { testEvent("m\($0)") })
        #expect(transport.requests.map(\.at) == [0, 500, 1000, 1500, 2000].map { Duration.milliseconds($0) })
    }

    @Test func eventsPerSecondLimitsLargeBatches() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let c = config {
            $0.maxBatchEvents = 10
            $0.eventsPerSecond = 5
        }
        _ = await runEngine(c, transport, clock: clock, events: (0..<30).map { testEvent("m\($0)") })
        #expect(transport.requests.map(\.at) == [1800, 3800, 5800].map { Duration.milliseconds($0) })
    }
}

@Suite struct EngineQuietLaneTests {
    /// Keys on different lanes of a 2-lane engine.
    private func keysOnTwoLanes() -> (busy: String, quiet: String) {
        let busy = "busy"
        let busyLane = FNV1a.hash(busy.utf8) % 2
        let quiet = (0..<100).map { "quiet-\($0)" }.first { FNV1a.hash($0.utf8) % 2 != busyLane }!
        return (busy, quiet)
    }

    /// A lane with one event must not wait for the end while another lane keeps sending: the
    /// caller's checkpoint cannot pass that event until it is settled.
    @Test func quietLaneSendsWhileABusyLaneKeepsGoing() async {
        let (busy, quiet) = keysOnTwoLanes()
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config { $0.concurrency = 2 }, transport: transport, clock: clock,
            random: FixedRandom(value: 0.5), onOutcomes: sink.callback)
        await running(engine) {
            _ = await engine.submit(testEvent("q", user: quiet))
            // The busy lane sends full batches and they settle; the run goes on (no finish, no flush).
            for round in 1...20 {
                _ = await engine.submit(contentsOf: (0..<100).map { testEvent("b\(round)-\($0)", user: busy) })
                await sink.waitForOutcomes(round * 100)
            }
            // 2 lanes x 100 events x 4 = 800 later submits make the quiet event's lane ready.
            #expect(sink.all.contains { $0.messageId == "q" }, "the quiet event waited: \(sink.all.count) outcomes so far")
            _ = await engine.finish()
            #expect(sink.all.count == 2001)
        }
    }
}
