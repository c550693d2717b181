@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

/// Taking back queued events (a consent purge): they leave with their tags, are counted as
/// withdrawn, and are never sent; the counts still add up.
@Suite struct EngineWithdrawTests {
    @Test func withdrawnEventsAreCountedAndNeverSent() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock)
        let sink = OutcomeSink()
        // Batches of 1,000: 30 events wait in their lanes for a flush that does not come.
        let engine = DeliveryEngine(
            configuration: config { $0.maxBatchEvents = 1000 }, transport: transport, clock: clock,
            random: FixedRandom(value: 0.5), onOutcomes: sink.callback)
        await running(engine) {
            for i in 0..<30 { _ = await engine.submit(testEvent("w\(i)", user: "u\(i % 3)", tag: UInt64(i))) }
            let tags = await engine.withdrawQueued()
            #expect(Set(tags) == Set(0..<30))
            _ = await engine.submit(testEvent("after", user: "u0", tag: 99))
            let stats = await engine.finish()
            #expect(stats.eventsWithdrawn == 30)
            #expect(stats.eventsSubmitted == stats.eventsDelivered + stats.eventsGivenUp + stats.eventsNotDelivered + stats.eventsWithdrawn)
            #expect(sink.all.map(\.messageId) == ["after"], "only the event submitted after the purge is sent")
            #expect(transport.requests.flatMap(\.events).count == 1)
        }
    }
}
