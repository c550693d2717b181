import Collector
import Testing

/// Seeded fault decisions, without a server.
@Suite struct FaultInjectorTests {
    @Test func seededGeneratorIsStable() {
        var a = SplitMix64(seed: 7)
        var b = SplitMix64(seed: 7)
        #expect((0..<100).map { _ in a.next() } == (0..<100).map { _ in b.next() })
        var c = SplitMix64(seed: 7)
        let units = (0..<1000).map { _ in c.nextUnit() }
        #expect(units.allSatisfy { $0 >= 0 && $0 < 1 })
    }

    @Test func failFirstAndDownTakePrecedence() {
        let injector = FaultInjector(
            FaultConfiguration(failureStatus: 408, down: DownWindow(start: .seconds(10), duration: .seconds(5)), failFirst: 1))
        #expect(injector.decide(elapsed: .zero) == .fail(408))
        #expect(injector.decide(elapsed: .zero) == FaultDecision.none)
        #expect(injector.decide(elapsed: .seconds(12)) == .fail(503))
        #expect(injector.decide(elapsed: .seconds(15)) == FaultDecision.none)
    }
}
