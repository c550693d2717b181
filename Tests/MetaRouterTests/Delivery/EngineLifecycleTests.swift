import Foundation
import Synchronization
import Testing

@_spi(PerLine) @testable import MetaRouter

@Suite struct EngineLifecycleTests {
    /// Waits (without sleeping) until `condition` holds.
    private func eventually(_ condition: () async -> Bool) async {
        for _ in 0..<100_000 {
            if await condition() { return }
            await Task.yield()
        }
        Issue.record("condition never became true")
    }

    @Test func cancelReportsEverythingNotDeliveredExactlyOnce() async {
        let clock = VirtualClock()
        let transport = GatedTransport()
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: config { $0.maxBatchEvents = 3 }, transport: transport,
                                    clock: clock, onOutcomes: sink.callback)
        for i in 0..<10 { _ = await engine.submit(testEvent("m\(i)")) }
        await eventually { transport.count == 1 }
        let stats = await engine.cancel(grace: .seconds(5))
        #expect(sink.all.count == 10)
        #expect(sink.all.allSatisfy { $0.result == .notDelivered(.cancelled) })
        #expect(stats.eventsNotDelivered == 10)
        let stopCause = await engine.stopCause
        #expect(stopCause == .cancelled)
        transport.release()  // the abandoned request finishes late: no second outcome
        let accepted = await engine.submit(testEvent("late"))
        #expect(!accepted)
        let again = await engine.finish()
        #expect(sink.all.count == 10)
        #expect(again.eventsDelivered == 0)
    }

    @Test func cancelLetsInFlightRequestsFinishWithinGrace() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: config { $0.maxBatchEvents = 2 }, transport: transport,
                                    clock: clock, onOutcomes: sink.callback)
        for i in 0..<5 { _ = await engine.submit(testEvent("m\(i)")) }
        let stats = await engine.cancel(grace: .seconds(5))
        #expect(sink.all.count == 5)
        #expect(stats.eventsDelivered + stats.eventsNotDelivered == 5)
        // Never more delivered than the server accepted. (A request still out when the grace ends is
        // abandoned and reported not delivered even if its 200 comes later; the next run resends it.)
        #expect(stats.eventsDelivered <= transport.requests.filter { $0.statusCode == 200 }.map(\.events.count).reduce(0, +))
    }

    @Test func submitSuspendsAtMaxPendingUntilOutcomesArrive() async {
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
        #expect(!(returned.withLock { $0 }), "submit waits while 3 events are unsettled")
        transport.release()
        let ok = await fourth.value
        #expect(ok)
        let stats = await engine.finish()
        #expect(stats.eventsDelivered == 4)
        #expect(sink.all.count == 4)
    }

    @Test func flushSendsPartialBatches() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: config(), transport: transport, clock: clock, onOutcomes: sink.callback)
        for i in 0..<3 { _ = await engine.submit(testEvent("m\(i)")) }
        await engine.flush()
        await eventually { sink.all.count == 3 }
        #expect(transport.requests.map(\.events.count) == [3])
        _ = await engine.finish()
    }

    @Test func configurationValidation() {
        func error(_ edit: (inout DeliveryConfiguration) -> Void) -> String? {
            var c = DeliveryConfiguration(host: "https://ingest.example.com", writeKey: "k")
            edit(&c)
            do { try c.validate(); return nil } catch { return error.setting }
        }
        #expect(error { _ in } == nil)
        #expect(error { $0.host = "http://127.0.0.1:8080/base" } == nil)
        #expect(error { $0.host = "http://localhost:8080" } == nil)
        #expect(error { $0.host = "http://[::1]:8080" } == nil)
        #expect(error { $0.host = "http://ingest.example.com" } == "host")
        #expect(error { $0.host = "http://ingest.example.com"; $0.allowInsecureHTTP = true } == nil)
        #expect(error { $0.host = "ftp://x" } == "host")
        #expect(error { $0.host = "not a url" } == "host")
        #expect(error { $0.writeKey = "" } == "writeKey")
        #expect(error { $0.maxBatchEvents = 0 } == "maxBatchEvents")
        #expect(error { $0.maxBatchEvents = 2501 } == "maxBatchEvents")
        #expect(error { $0.maxBatchBytes = 1000 } == "maxBatchBytes")
        #expect(error { $0.concurrency = 0 } == "concurrency")
        #expect(error { $0.eventsPerSecond = -1 } == "eventsPerSecond")
        #expect(error { $0.requestsPerSecond = .infinity } == "requestsPerSecond")
        #expect(error { $0.breaker.jitter = 1.5 } == "breaker.jitter")
        #expect(error { $0.maxAttempts = 0 } == "maxAttempts")
        var c = DeliveryConfiguration(host: "https://h.example/api/", writeKey: "k")
        #expect(c.endpointURL == "https://h.example/api/v1/batch")
        c.maxBatchEvents = 9999
        #expect(c.effectiveMaxBatchEvents == 2500)
    }
}
