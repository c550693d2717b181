import Foundation
import JSONCore
import XCTest

@testable import MetaRouter

/// `submit(chunk:)`: events that share one storage are delivered exactly like the same events
/// submitted one by one.
final class EngineChunkTests: XCTestCase {
    /// The events back to back in one storage, with bytes no entry names between them.
    func chunk(of events: [EncodedEvent]) -> EventChunk {
        var chunk = EventChunk()
        for e in events {
            chunk.storage += Array(" \n junk ".utf8)
            let start = chunk.storage.count
            chunk.storage += e.bytes
            chunk.entries.append(.init(range: start..<chunk.storage.count, laneKey: e.orderingKey.map { FNV1a.hash($0.utf8) }, tag: e.tag))
        }
        return chunk
    }

    func testChunkIsDeliveredLikeTheSameEventsOneByOne() async {
        let events = (0..<250).map { testEvent("m\($0)", user: $0 % 5 == 0 ? nil : "u\($0 % 11)", padding: $0 % 40, tag: UInt64($0)) }
        let c = config { $0.concurrency = 3 }

        let clock1 = VirtualClock()
        let oneByOne = ScriptedTransport(clock: clock1)
        let (_, stats1, sink1) = await runEngine(c, oneByOne, clock: clock1, events: events)

        let clock2 = VirtualClock()
        let chunked = ScriptedTransport(clock: clock2)
        let sink2 = OutcomeSink()
        let engine = DeliveryEngine(configuration: c, transport: chunked, clock: clock2, random: FixedRandom(value: 0.5), onOutcomes: sink2.callback)
        let accepted = await engine.submit(chunk: chunk(of: events))
        let stats2 = await engine.finish()

        XCTAssertEqual(accepted, 250)
        XCTAssertEqual(stats2.eventsDelivered, 250)
        XCTAssertEqual(stats2.batchesSent, stats1.batchesSent)
        XCTAssertEqual(Set(sink2.all.map(\.tag)), Set(0..<250))
        XCTAssertTrue(sink2.all.allSatisfy { $0.result == .delivered && $0.messageId.isEmpty })
        for r in chunked.requests { assertWellFormedBody(r, writeKey: "wk-123") }
        // The same batches (lanes follow the lane keys as they follow the ordering keys), each
        // event's bytes as submitted apart from the stamped sentAt and writeKey.
        XCTAssertEqual(Set(chunked.requests.map(\.messageIds)), Set(oneByOne.requests.map(\.messageIds)))
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
        XCTAssertEqual(withoutStamps(chunked.requests), withoutStamps(oneByOne.requests))
        _ = sink1
    }

    func testARejectedChunkEventIsGivenUpWithItsOwnBytes() async {
        let events = (0..<8).map { testEvent($0 == 5 ? "bad" : "m\($0)", user: "u", tag: UInt64(100 + $0)) }
        let chunk = chunk(of: events)
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock) { _, batch in
            batch.contains { $0["messageId"]?.stringValue == "bad" } ? .status(400, headers: []) : .status(200, headers: [])
        }
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: config(), transport: transport, clock: clock, random: FixedRandom(value: 0.5), onOutcomes: sink.callback)
        _ = await engine.submit(chunk: chunk)
        let stats = await engine.finish()

        XCTAssertEqual(stats.eventsDelivered, 7)
        XCTAssertEqual(stats.eventsGivenUp, 1)
        let bad = sink.all.first { $0.tag == 105 }
        XCTAssertEqual(bad?.result, .gaveUp(reason: "rejected_400", detail: "the endpoint answered 400 for this event alone"))
        XCTAssertEqual(bad?.givenUpBytes, Array(chunk.storage[chunk.entries[5].range]))
        XCTAssertEqual(bad?.givenUpBytes, events[5].bytes)
        XCTAssertTrue(sink.all.filter { $0.tag != 105 }.allSatisfy { $0.result == .delivered && $0.givenUpBytes == nil })
    }
}
