import Foundation
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

/// The scoped run that mr-replay's run, the dead-letter retry and the client own an engine with:
/// the lanes run while the body feeds the engine, the body's ending is applied, a raised stop
/// ends the engine as the policy says, and the call returns with every event settled.
@Suite struct EngineScopedRunTests {
    @Test func aBodyThatFinishesGetsEverythingDelivered() async {
        let transport = ScriptedTransport()
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config { $0.maxBatchEvents = 3 }, transport: transport,
            clock: TestClock(advancing: .automatically), onOutcomes: sink.callback)
        let (value, stats) = await engine.run(stop: StopSignal(), onStop: .cancel(grace: .seconds(5))) {
            for i in 0..<10 { _ = await engine.submit(testEvent("m\(i)")) }
            return ("fed", .finish)
        }
        #expect(value == "fed")
        #expect(stats.eventsDelivered == 10)
        #expect(sink.all.count == 10 && sink.all.allSatisfy { $0.result == .delivered })
        #expect(await !engine.submit(testEvent("late")), "the engine ended before the call returned")
    }

    @Test func aBodyThatCancelsSendsNothingMore() async {
        let transport = ScriptedTransport(holdingAll: true)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config { $0.maxBatchEvents = 2 }, transport: transport,
            clock: TestClock(advancing: .automatically), onOutcomes: sink.callback)
        let (_, stats) = await engine.run(stop: StopSignal(), onStop: .cancel(grace: .zero)) {
            for i in 0..<6 { _ = await engine.submit(testEvent("m\(i)")) }
            await transport.waitForArrivals(1)
            return ((), .cancel)
        }
        #expect(stats.eventsNotDelivered == 6)
        #expect(sink.all.count == 6, "every event has exactly one outcome")
        #expect(transport.arrivals == 1, "nothing was sent after the cancel")
    }

    @Test func aStopWhileTheBodyRunsCancelsWithTheGrace() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(holdingAll: true)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config { $0.maxBatchEvents = 2 }, transport: transport, clock: clock,
            onOutcomes: sink.callback)
        let stop = StopSignal()
        let (_, stats) = await engine.run(stop: stop, onStop: .cancel(grace: .seconds(5))) {
            for i in 0..<4 { _ = await engine.submit(testEvent("m\(i)")) }
            await transport.waitForArrivals(1)
            stop.request()
            return ((), .finish)  // the stop's cancel wins: finishing waits for it
        }
        #expect(await engine.stopCause == .cancelled)
        #expect(stats.eventsDelivered == 0)
        #expect(sink.all.allSatisfy { $0.result == .notDelivered(.cancelled) })
    }

    /// An engine of one-event batches whose requests wait for `release()`, run with a stop
    /// policy of "finish by 10 s": its body submits three events and raises the stop once the
    /// first request is out. Returns what the test drives, and the run to await.
    private func stoppedWhileHolding() -> (
        clock: TestClock, transport: ScriptedTransport, sink: OutcomeSink, engine: DeliveryEngine, deadline: Duration,
        run: Task<DeliveryStats, Never>
    ) {
        let clock = TestClock()
        let transport = ScriptedTransport(holdingAll: true)
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config { $0.maxBatchEvents = 1 }, transport: transport, clock: clock,
            onOutcomes: sink.callback)
        let stop = StopSignal()
        let deadline = clock.now + .seconds(10)
        let run = Task {
            await engine.run(stop: stop, onStop: .finishBy(deadline: { deadline }, grace: .zero)) {
                for i in 0..<3 { _ = await engine.submit(testEvent("m\(i)")) }
                await transport.waitForArrivals(1)
                stop.request()
                return ((), .finish)
            }.stats
        }
        return (clock, transport, sink, engine, deadline, run)
    }

    @Test func finishByKeepsSendingAfterTheStopBeforeTheDeadline() async {
        let (_, transport, _, engine, _, run) = stoppedWhileHolding()
        await transport.waitForArrivals(1)
        transport.release()  // the clock stays before the deadline: the stop ends nothing
        let stats = await run.value
        #expect(stats.eventsDelivered == 3)
        #expect(await engine.stopCause == nil)
    }

    @Test func finishByCancelsOnceTheDeadlinePasses() async {
        let (clock, transport, sink, engine, deadline, run) = stoppedWhileHolding()
        // The held request never gets an answer: past the deadline the engine is cancelled.
        await clock.waitForSleeper(until: deadline)
        clock.advance(by: .seconds(10))
        let stats = await run.value
        #expect(await engine.stopCause == .cancelled)
        #expect(stats.eventsDelivered == 0 && stats.eventsNotDelivered == 3)
        #expect(sink.all.count == 3)
        transport.release()
    }
}
