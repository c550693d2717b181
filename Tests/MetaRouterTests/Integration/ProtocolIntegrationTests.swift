import Collector
import Foundation
@_spi(PerLine) import MetaRouter
import Testing

/// Wire-level behaviour through the real HTTP transport: gzip, tracing, authentication.
@Suite(.serialized) struct ProtocolIntegrationTests {
    @Test func gzipAndTracingHeadersAreSentAndTheCollectorDecodesTheBodies() async throws {
        let events = Loopback.events(count: 800, padding: 200)
        let r = try await Loopback.run(
            events,
            engine: {
                $0.gzip = true
                $0.tracing = true
            })
        expectRunInvariants(r, submitted: events)
        #expect(r.stats.eventsDelivered == 800)
        #expect(!r.requests.isEmpty)
        for q in r.requests {
            #expect(q.header("Content-Encoding") == "gzip")
            #expect(q.header("Trace") == "true")
            #expect(q.header("Authorization") == "Basic " + Data("\(Loopback.writeKey):".utf8).base64EncodedString())
        }
        // The collector counts wire bytes: gzip makes them far fewer than the ~200 KB of events.
        #expect(r.collector.bytes == r.requests.map(\.request.body.count).reduce(0, +))
        #expect(r.collector.bytes < 800 * 200 / 4)
        // Stored events carry the spliced writeKey and sentAt.
        for e in r.stored {
            #expect(e["writeKey"]?.stringValue == Loopback.writeKey)
            #expect(e["sentAt"]?.stringValue?.count == 24)
        }
    }

    @Test func noTracingHeaderWhenTracingIsOff() async throws {
        let events = Loopback.events(count: 120)
        let r = try await Loopback.run(events)
        expectRunInvariants(r, submitted: events)
        #expect(r.stats.eventsDelivered == 120)
        #expect(r.requests.allSatisfy { $0.header("Trace") == nil && $0.header("Content-Encoding") == nil })
    }

    @Test func wrongWriteKeyStopsWith401AndEveryAcceptedEventIsNotDelivered() async throws {
        let events = Loopback.events(count: 1000)
        let r = try await Loopback.run(events, engine: { $0.writeKey = "wrong-key" })
        expectRunInvariants(r, submitted: events)
        #expect(!r.accepted.isEmpty)
        #expect(r.outcomes.count == r.accepted.count)
        for o in r.outcomes { #expect(o.result == .notDelivered(.fatalStatus(401)), "\(o.messageId)") }
        #expect(r.stats.eventsNotDelivered == r.accepted.count)
        #expect(r.stats.eventsDelivered == 0)
        #expect(r.collector.events == 0)
        #expect(r.stored.isEmpty)
        #expect(r.collector.responses(401) >= 1)
        #expect(r.stats.responses.keys.sorted() == ["401"])
    }
}
