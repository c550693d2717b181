import Foundation
import MetaRouter
import Synchronization
import XCTest

/// A transport that answers 200 and counts the events in each body.
private final class CountingTransport: DeliveryTransport {
    let events = Mutex(0)
    let requests = Mutex(0)
    func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        let n = request.body.withUnsafeBufferPointer { b in
            // Every event carries exactly one "writeKey" member spliced in by the engine.
            var count = 0
            let needle = Array("\"writeKey\"".utf8)
            var i = 0
            while i + needle.count <= b.count {
                if b[i] == needle[0], Array(b[i..<(i + needle.count)]) == needle { count += 1 }
                i += 1
            }
            return count
        }
        events.withLock { $0 += n }
        requests.withLock { $0 += 1 }
        return .status(200, headers: [])
    }
}

/// `submit(contentsOf:)` behaves like one `submit` per event.
final class BulkSubmitTests: XCTestCase {
    private func events(_ n: Int) -> [EncodedEvent] {
        (0..<n).map { i in
            EncodedEvent(
                uncheckedBytes: Array("{\"type\":\"track\",\"event\":\"E\",\"messageId\":\"m\(i)\",\"anonymousId\":\"a\(i % 7)\"}".utf8),
                messageId: "m\(i)", orderingKey: "a\(i % 7)", tag: UInt64(i))
        }
    }

    func testBulkSubmitDeliversEveryEventOnce() async throws {
        let transport = CountingTransport()
        var config = DeliveryConfiguration(host: "http://127.0.0.1:9", writeKey: "K")
        config.maxBatchEvents = 10
        config.concurrency = 3
        let delivered = Mutex(0)
        let engine = DeliveryEngine(configuration: config, transport: transport) { outcomes in
            delivered.withLock { $0 += outcomes.filter { $0.result == .delivered }.count }
        }
        let accepted = await engine.submit(contentsOf: events(253))
        XCTAssertEqual(accepted, 253)
        let stats = await engine.finish()
        XCTAssertEqual(stats.eventsSubmitted, 253)
        XCTAssertEqual(stats.eventsDelivered, 253)
        XCTAssertEqual(delivered.withLock { $0 }, 253)
        XCTAssertEqual(transport.events.withLock { $0 }, 253)
        XCTAssertGreaterThanOrEqual(transport.requests.withLock { $0 }, 26)
    }

    func testBulkSubmitAcceptsNothingAfterTheEngineStopped() async throws {
        let transport = CountingTransport()
        let config = DeliveryConfiguration(host: "http://127.0.0.1:9", writeKey: "K")
        let engine = DeliveryEngine(configuration: config, transport: transport) { _ in }
        _ = await engine.cancel(grace: .zero)
        let accepted = await engine.submit(contentsOf: events(5))
        XCTAssertEqual(accepted, 0)
        XCTAssertEqual(transport.events.withLock { $0 }, 0)
    }
}
