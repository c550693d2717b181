import Foundation
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

@Suite struct EngineLifecycleTests {
    @Test func cancelReportsEverythingNotDeliveredExactlyOnce() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(holdingAll: true)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config { $0.maxBatchEvents = 3 }, transport: transport,
            clock: clock, onOutcomes: sink.callback)
        await running(engine) {
            for i in 0..<10 { _ = await engine.submit(testEvent("m\(i)")) }
            await transport.waitForArrivals(1)
            let stats = await engine.cancel(grace: .seconds(5))
            #expect(sink.all.count == 10)
            #expect(sink.all.allSatisfy { $0.result == .notDelivered(.cancelled) })
            #expect(stats.eventsNotDelivered == 10)
            let stopCause = await engine.stopCause
            #expect(stopCause == .cancelled)
            transport.release()  // the abandoned request was cancelled: no second outcome
            let accepted = await engine.submit(testEvent("late"))
            #expect(!accepted)
            let again = await engine.finish()
            #expect(sink.all.count == 10)
            #expect(again.eventsDelivered == 0)
        }
    }

    @Test func cancelLetsInFlightRequestsFinishWithinGrace() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config { $0.maxBatchEvents = 2 }, transport: transport,
            clock: clock, onOutcomes: sink.callback)
        await running(engine) {
            for i in 0..<5 { _ = await engine.submit(testEvent("m\(i)")) }
            let stats = await engine.cancel(grace: .seconds(5))
            #expect(sink.all.count == 5)
            #expect(stats.eventsDelivered + stats.eventsNotDelivered == 5)
            // Never more delivered than the server accepted. (A request still out when the grace ends is
            // abandoned and reported not delivered even if its 200 comes later; the next run resends it.)
            #expect(stats.eventsDelivered <= transport.requests.filter { $0.statusCode == 200 }.map(\.events.count).reduce(0, +))
        }
    }

    @Test func submitSuspendsAtMaxPendingUntilOutcomesArrive() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(holdingAll: true)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config {
                $0.maxPendingEvents = 3; $0.maxBatchEvents = 10
            },
            transport: transport, clock: clock, onOutcomes: sink.callback)
        await running(engine) {
            for i in 0..<3 { _ = await engine.submit(testEvent("m\(i)")) }
            async let fourth = engine.submit(testEvent("m3"))
            // The blocked submitter makes the lane send its partial batch, which the transport holds.
            await transport.waitForArrivals(1)
            #expect(sink.all.isEmpty, "nothing settled, so the fourth submit still waits")
            transport.release()
            #expect(await fourth)
            let stats = await engine.finish()
            #expect(stats.eventsDelivered == 4)
            #expect(sink.all.count == 4)
        }
    }

    @Test func aCancelledSubmitReturnsWithoutTakingTheEvent() async {
        let transport = ScriptedTransport(holdingAll: true)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config { $0.maxPendingEvents = 1 }, transport: transport,
            clock: TestClock(advancing: .automatically), onOutcomes: sink.callback)
        await running(engine) {
            #expect(await engine.submit(testEvent("m0")))
            let blocked = Task { await engine.submit(testEvent("m1")) }
            // m0 is held by the transport, so m1 waits for room until its task is cancelled.
            await engine.waitForASubmitterToWait()
            blocked.cancel()
            #expect(await blocked.value == false, "a cancelled submit returns false")
            transport.release()
            let stats = await engine.finish()
            #expect(stats.eventsSubmitted == 1)
            #expect(sink.all.map(\.messageId) == ["m0"])
        }
    }

    @Test func aCancelledRunStopsTheEngineAndSettlesEverything() async {
        let transport = ScriptedTransport(holdingAll: true)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config { $0.maxBatchEvents = 2 }, transport: transport,
            clock: TestClock(advancing: .automatically), onOutcomes: sink.callback)
        let run = Task { await engine.run() }
        for i in 0..<5 { _ = await engine.submit(testEvent("m\(i)")) }
        await transport.waitForArrivals(1)
        run.cancel()
        await run.value  // the held request was cancelled with its lane
        #expect(sink.all.count == 5)
        #expect(sink.all.allSatisfy { $0.result == .notDelivered(.cancelled) })
        let accepted = await engine.submit(testEvent("late"))
        #expect(!accepted)
    }

    @Test func finishWaitsForRunToStart() async {
        let transport = ScriptedTransport()
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: config(), transport: transport, onOutcomes: sink.callback)
        _ = await engine.submit(testEvent("early"))
        async let stats = engine.finish()  // nothing runs the lanes yet
        await engine.run()
        #expect(await stats.eventsDelivered == 1)
        #expect(transport.requests.map(\.messageIds) == [["early"]])
    }

    @Test func flushSendsPartialBatches() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: config(), transport: transport, clock: clock, onOutcomes: sink.callback)
        await running(engine) {
            for i in 0..<3 { _ = await engine.submit(testEvent("m\(i)")) }
            await engine.flush()
            await sink.waitForOutcomes(3)
            #expect(transport.requests.map(\.events.count) == [3])
        }
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
        #expect(
            error {
                $0.host = "http://ingest.example.com"; $0.allowInsecureHTTP = true
            } == nil)
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
