import Collector
import XCTest

@testable import MetaRouter

/// Wire-level behaviour through the real HTTP transport: gzip, tracing, authentication.
final class ProtocolIntegrationTests: XCTestCase {
    func testGzipAndTracingHeadersAreSentAndTheCollectorDecodesTheBodies() async throws {
        let events = Loopback.events(count: 800, padding: 200)
        let r = try await Loopback.run(events, engine: {
            $0.gzip = true
            $0.tracing = true
        })
        assertRunInvariants(r, submitted: events)
        XCTAssertEqual(r.stats.eventsDelivered, 800)
        XCTAssertFalse(r.requests.isEmpty)
        for q in r.requests {
            XCTAssertEqual(q.header("Content-Encoding"), "gzip")
            XCTAssertEqual(q.header("Trace"), "true")
            XCTAssertEqual(q.header("Authorization"), "Basic " + Data("\(Loopback.writeKey):".utf8).base64EncodedString())
        }
        // The collector counts wire bytes: gzip makes them far fewer than the ~200 KB of events.
        XCTAssertEqual(r.collector.bytes, r.requests.map(\.wireBytes).reduce(0, +))
        XCTAssertLessThan(r.collector.bytes, 800 * 200 / 4)
        // Stored events carry the spliced writeKey and sentAt.
        for e in r.stored {
            XCTAssertEqual(e["writeKey"]?.stringValue, Loopback.writeKey)
            XCTAssertEqual(e["sentAt"]?.stringValue?.count, 24)
        }
    }

    func testNoTracingHeaderWhenTracingIsOff() async throws {
        let events = Loopback.events(count: 120)
        let r = try await Loopback.run(events)
        assertRunInvariants(r, submitted: events)
        XCTAssertEqual(r.stats.eventsDelivered, 120)
        XCTAssertTrue(r.requests.allSatisfy { $0.header("Trace") == nil && $0.header("Content-Encoding") == nil })
    }

    func testWrongWriteKeyStopsWith401AndEveryAcceptedEventIsNotDelivered() async throws {
        let events = Loopback.events(count: 1000)
        let r = try await Loopback.run(events, engine: { $0.writeKey = "wrong-key" })
        assertRunInvariants(r, submitted: events)
        XCTAssertFalse(r.accepted.isEmpty)
        XCTAssertEqual(r.outcomes.count, r.accepted.count)
        for o in r.outcomes { XCTAssertEqual(o.result, .notDelivered(.fatalStatus(401)), o.messageId) }
        XCTAssertEqual(r.stats.eventsNotDelivered, r.accepted.count)
        XCTAssertEqual(r.stats.eventsDelivered, 0)
        XCTAssertEqual(r.collector.events, 0)
        XCTAssertTrue(r.stored.isEmpty)
        XCTAssertGreaterThanOrEqual(r.collector.responses(401), 1)
        XCTAssertEqual(r.stats.responses.keys.sorted(), ["401"])
    }
}
