import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

@_spi(PerLine) @testable import MetaRouterDelivery

/// `submit(chunk:)`: events that share one storage are delivered exactly like the same events
/// submitted one by one.
@Suite struct EngineChunkTests {
    @Test func chunkIsDeliveredLikeTheSameEventsOneByOne() async {
        let events = (0..<250).map { testEvent("m\($0)", user: "u\($0 % 11)", padding: $0 % 40, tag: UInt64($0)) }
        let c = config { $0.concurrency = 3 }

        let clock1 = TestClock(advancing: .automatically)
        let oneByOne = ScriptedTransport(clock: clock1)
        let (_, stats1, sink1) = await runEngine(c, oneByOne, clock: clock1, events: events)

        let clock2 = TestClock(advancing: .automatically)
        let chunked = ScriptedTransport(clock: clock2)
        let sink2 = OutcomeSink()
        let engine = DeliveryEngine(configuration: c, transport: chunked, clock: clock2, random: FixedRandom(value: 0.5), onOutcomes: sink2.callback)
        await running(engine) {
            let accepted = await engine.submit(chunk: chunk(of: events))
            let stats2 = await engine.finish()

            #expect(accepted == 250)
            #expect(stats2.eventsDelivered == 250)
            #expect(stats2.batchesSent == stats1.batchesSent)
            #expect(Set(sink2.all.map(\.tag)) == Set(0..<250))
            #expect(sink2.all.allSatisfy { $0.result == .delivered && $0.messageId.isEmpty })
            for r in chunked.requests { expectWellFormedBody(r, writeKey: "wk-123") }
            // The same batches (lanes follow the lane keys as they follow the ordering keys), each
            // event's bytes as submitted apart from the stamped sentAt and writeKey.
            #expect(Set(chunked.requests.map(\.messageIds)) == Set(oneByOne.requests.map(\.messageIds)))
            func withoutStamps(_ rs: [RecordedRequest]) -> [String: JSONObject] {
                var byId: [String: JSONObject] = [:]
                for r in rs {
                    for e in r.events {
                        var o = e
                        o["sentAt"] = nil
                        o["writeKey"] = nil
                        byId[e["messageId"]?.stringValue ?? "?"] = o
                    }
                }
                return byId
            }
            #expect(withoutStamps(chunked.requests) == withoutStamps(oneByOne.requests))
            _ = sink1
        }
    }

    @Test func aRejectedChunkEventIsGivenUpWithItsOwnBytes() async {
        let events = (0..<8).map { testEvent($0 == 5 ? "bad" : "m\($0)", user: "u", tag: UInt64(100 + $0)) }
        let chunk = chunk(of: events)
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock) { _, batch in
            batch.contains { $0["messageId"]?.stringValue == "bad" } ? .status(400, headers: []) : .status(200, headers: [])
        }
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config(), transport: transport, clock: clock, random: FixedRandom(value: 0.5), onOutcomes: sink.callback)
        await running(engine) {
            _ = await engine.submit(chunk: chunk)
            let stats = await engine.finish()

            #expect(stats.eventsDelivered == 7)
            #expect(stats.eventsGivenUp == 1)
            let bad = sink.all.first { $0.tag == 105 }
            #expect(bad?.result == .gaveUp(reason: .rejected(status: 400), detail: "the endpoint answered 400 for this event alone"))
            #expect(bad?.givenUpBytes == Array(chunk.storage[chunk.entries[5].range]))
            #expect(bad?.givenUpBytes == events[5].bytes)
            #expect(sink.all.filter { $0.tag != 105 }.allSatisfy { $0.result == .delivered && $0.givenUpBytes == nil })
        }
    }

    @Test("a chunk's lane keys route like the ordering keys they hash", arguments: [1, 2, 3, 7])
    func laneKeysRouteLikeOrderingKeys(lanes: Int) {
        for user in (0..<50).map({ "user-\($0)" }) {
            let key = LaneRouting.laneKey(forOrderingKey: user)
            #expect(key == FNV1a.hash(user.utf8))
            #expect(LaneRouting.lane(forKey: key, laneCount: lanes) == Int(FNV1a.hash(user.utf8) % UInt64(lanes)))
        }
    }

    @Test("a chunk delivers every event exactly once over several lanes")
    func chunkDeliversEveryEventOnce() async {
        let events = (0..<253).map { testEvent("m\($0)", user: "a\($0 % 7)", tag: UInt64($0)) }
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config {
                $0.maxBatchEvents = 10; $0.concurrency = 3
            }, transport: transport,
            clock: clock, random: FixedRandom(value: 0.5), onOutcomes: sink.callback)
        await running(engine) {
            let accepted = await engine.submit(chunk: chunk(of: events))
            let stats = await engine.finish()
            #expect(accepted == 253)
            #expect(stats.eventsSubmitted == 253)
            #expect(stats.eventsDelivered == 253)
            #expect(sink.all.map(\.tag).sorted() == (0..<253).map(UInt64.init))
            #expect(transport.requests.map(\.events.count).reduce(0, +) == 253)
            #expect(transport.requests.count >= 26)
        }
    }

    @Test("a stopped engine accepts nothing from a chunk and reports no outcome")
    func chunkAfterStop() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: config(), transport: transport, clock: clock, onOutcomes: sink.callback)
        await running(engine) {
            _ = await engine.cancel(grace: .zero)
            let accepted = await engine.submit(chunk: chunk(of: (0..<5).map { testEvent("m\($0)", user: "u") }))
            #expect(accepted == 0)
            #expect(transport.requests.isEmpty)
            #expect(sink.all.isEmpty)
        }
    }

    @Test(
        "the precondition on entries holds for exact objects only",
        arguments: [
            ("{\"a\":1}", 0..<7, true),
            ("{\"a\":1} ", 0..<8, false),
            ("x{\"a\":1}", 0..<8, false),
            ("{}", 0..<2, false),
            ("{ \n}", 0..<4, false),
            ("{\"a\":1}", 0..<9, false),
        ])
    func entryPrecondition(text: String, range: Range<Int>, valid: Bool) {
        let bytes = Array(text.utf8)
        let inside = range.upperBound <= bytes.count
        let checked = inside && bytes.withUnsafeBufferPointer { BatchEncoder.isOneNonEmptyObject(UnsafeBufferPointer(rebasing: $0[range])) }
        #expect(checked == valid)
    }

    @Test("an entry that is not one object stops the process before it is sent, in every build")
    func chunkPreconditionTraps() async {
        await #expect(processExitsWith: .failure) {
            let engine = DeliveryEngine(
                configuration: DeliveryConfiguration(host: "http://127.0.0.1:9", writeKey: "k"),
                transport: ScriptedTransport(clock: TestClock(advancing: .automatically))
            ) { _ in }
            async let _ = engine.run()
            let bad = EventChunk(storage: Array("{\"a\":1} junk".utf8), entries: [.init(range: 0..<12, laneKey: 1, tag: 0)])
            _ = await engine.submit(chunk: bad)
            _ = await engine.finish()
        }
    }

    @Test("submit(chunk:) stops the process on an entry outside the storage, in every build")
    func chunkBoundsTrap() async {
        await #expect(processExitsWith: .failure) {
            let engine = DeliveryEngine(
                configuration: DeliveryConfiguration(host: "http://127.0.0.1:9", writeKey: "k"),
                transport: ScriptedTransport(clock: TestClock(advancing: .automatically))
            ) { _ in }
            async let _ = engine.run()
            let bad = EventChunk(storage: Array("{\"a\":1}".utf8), entries: [.init(range: 0..<9, laneKey: 1, tag: 0)])
            _ = await engine.submit(chunk: bad)
        }
    }
}
