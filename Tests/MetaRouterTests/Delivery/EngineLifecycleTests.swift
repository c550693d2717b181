import Foundation
import Synchronization
import XCTest

@testable import MetaRouter

final class EngineLifecycleTests: XCTestCase {
    /// Waits (without sleeping) until `condition` holds.
    private func eventually(_ condition: () async -> Bool) async {
        for _ in 0..<100_000 {
            if await condition() { return }
            await Task.yield()
        }
        XCTFail("condition never became true")
    }

    func testCancelReportsEverythingNotDeliveredExactlyOnce() async {
        let clock = VirtualClock()
        let transport = GatedTransport()
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: config { $0.maxBatchEvents = 3 }, transport: transport,
                                    clock: clock, onOutcomes: sink.callback)
        for i in 0..<10 { _ = await engine.submit(testEvent("m\(i)")) }
        await eventually { transport.count == 1 }
        let stats = await engine.cancel(grace: .seconds(5))
        XCTAssertEqual(sink.all.count, 10)
        XCTAssertTrue(sink.all.allSatisfy { $0.result == .notDelivered(.cancelled) })
        XCTAssertEqual(stats.eventsNotDelivered, 10)
        let stopCause = await engine.stopCause
        XCTAssertEqual(stopCause, .cancelled)
        transport.release()  // the abandoned request finishes late: no second outcome
        let accepted = await engine.submit(testEvent("late"))
        XCTAssertFalse(accepted)
        let again = await engine.finish()
        XCTAssertEqual(sink.all.count, 10)
        XCTAssertEqual(again.eventsDelivered, 0)
    }

    func testCancelLetsInFlightRequestsFinishWithinGrace() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: config { $0.maxBatchEvents = 2 }, transport: transport,
                                    clock: clock, onOutcomes: sink.callback)
        for i in 0..<5 { _ = await engine.submit(testEvent("m\(i)")) }
        let stats = await engine.cancel(grace: .seconds(5))
        XCTAssertEqual(sink.all.count, 5)
        XCTAssertEqual(stats.eventsDelivered + stats.eventsNotDelivered, 5)
        // Never more delivered than the server accepted. (A request still out when the grace ends is
        // abandoned and reported not delivered even if its 200 comes later; the next run resends it.)
        XCTAssertLessThanOrEqual(
            stats.eventsDelivered, transport.requests.filter { $0.statusCode == 200 }.map(\.events.count).reduce(0, +))
    }

    func testSubmitSuspendsAtMaxPendingUntilOutcomesArrive() async {
        let clock = VirtualClock()
        let transport = GatedTransport()
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: config { $0.maxPendingEvents = 3; $0.maxBatchEvents = 10 },
                                    transport: transport, clock: clock, onOutcomes: sink.callback)
        for i in 0..<3 { _ = await engine.submit(testEvent("m\(i)")) }
        let returned = Mutex(false)
        let fourth = Task {
            let ok = await engine.submit(testEvent("m3"))
            returned.withLock { $0 = true }
            return ok
        }
        // The blocked submitter makes the lane send its partial batch.
        await eventually { transport.count == 1 }
        XCTAssertFalse(returned.withLock { $0 }, "submit waits while 3 events are unsettled")
        transport.release()
        let ok = await fourth.value
        XCTAssertTrue(ok)
        let stats = await engine.finish()
        XCTAssertEqual(stats.eventsDelivered, 4)
        XCTAssertEqual(sink.all.count, 4)
    }

    func testFlushSendsPartialBatches() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: config(), transport: transport, clock: clock, onOutcomes: sink.callback)
        for i in 0..<3 { _ = await engine.submit(testEvent("m\(i)")) }
        await engine.flush()
        await eventually { sink.all.count == 3 }
        XCTAssertEqual(transport.requests.map(\.events.count), [3])
        _ = await engine.finish()
    }

    func testConfigurationValidation() {
        func error(_ edit: (inout DeliveryConfiguration) -> Void) -> String? {
            var c = DeliveryConfiguration(host: "https://ingest.example.com", writeKey: "k")
            edit(&c)
            do { try c.validate(); return nil } catch { return error.setting }
        }
        XCTAssertNil(error { _ in })
        XCTAssertNil(error { $0.host = "http://127.0.0.1:8080/base" })
        XCTAssertNil(error { $0.host = "http://localhost:8080" })
        XCTAssertNil(error { $0.host = "http://[::1]:8080" })
        XCTAssertEqual(error { $0.host = "http://ingest.example.com" }, "host")
        XCTAssertNil(error { $0.host = "http://ingest.example.com"; $0.allowInsecureHTTP = true })
        XCTAssertEqual(error { $0.host = "ftp://x" }, "host")
        XCTAssertEqual(error { $0.host = "not a url" }, "host")
        XCTAssertEqual(error { $0.writeKey = "" }, "writeKey")
        XCTAssertEqual(error { $0.maxBatchEvents = 0 }, "maxBatchEvents")
        XCTAssertEqual(error { $0.maxBatchEvents = 2501 }, "maxBatchEvents")
        XCTAssertEqual(error { $0.maxBatchBytes = 1000 }, "maxBatchBytes")
        XCTAssertEqual(error { $0.concurrency = 0 }, "concurrency")
        XCTAssertEqual(error { $0.eventsPerSecond = -1 }, "eventsPerSecond")
        XCTAssertEqual(error { $0.requestsPerSecond = .infinity }, "requestsPerSecond")
        XCTAssertEqual(error { $0.breaker.jitter = 1.5 }, "breaker.jitter")
        XCTAssertEqual(error { $0.maxAttempts = 0 }, "maxAttempts")
        var c = DeliveryConfiguration(host: "https://h.example/api/", writeKey: "k")
        XCTAssertEqual(c.endpointURL, "https://h.example/api/v1/batch")
        c.maxBatchEvents = 9999
        XCTAssertEqual(c.effectiveMaxBatchEvents, 2500)
    }
}
