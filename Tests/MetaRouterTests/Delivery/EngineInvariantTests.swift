import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

/// Mixed answers under concurrency: the engine's invariants must hold whatever the interleaving.
@Suite struct EngineInvariantTests {
    @Test func exactlyOneOutcomeAndPerIdentityOrderUnderMixedAnswers() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock) { i, events in
            let roll = (UInt64(i) &* 2_654_435_761) % 100
            switch roll {
            case 0..<10: return .status(503, headers: [])
            case 10..<15: return .networkError("reset")
            case 15..<25: return events.count > 1 ? .status(413, headers: []) : .status(200, headers: [])
            case 25..<32: return .status(400, headers: [])
            default: return .status(200, headers: [])
            }
        }
        let c = config {
            $0.concurrency = 4
            $0.maxBatchEvents = 9
            $0.maxBatchBytes = 3_000
            $0.breaker.failureThreshold = 50
        }
        let events = (0..<400).map { testEvent("m\($0)", user: "u\($0 % 13)", padding: ($0 * 31) % 200, tag: UInt64($0)) }
        let (_, stats, sink) = await runEngine(c, transport, clock: clock, events: events)

        #expect(sink.all.count == 400, "one outcome per event")
        #expect(Set(sink.all.map(\.tag)) == Set(0..<400))
        #expect(stats.eventsDelivered + stats.eventsGivenUp + stats.eventsNotDelivered == 400)
        let results = sink.results()
        var deliveredOrder: [String: [String]] = [:]
        var deliveredIds = Set<String>()
        for r in transport.requests {
            #expect(r.body.count <= 3_000)
            #expect(r.events.count <= 9)
            guard r.statusCode == 200 else { continue }
            for e in r.events {
                let id = e["messageId"]!.stringValue!
                deliveredIds.insert(id)
                deliveredOrder[e["anonymousId"]!.stringValue!, default: []].append(id)
            }
        }
        #expect(deliveredOrder.values.map(\.count).reduce(0, +) == deliveredIds.count, "no event delivered twice")
        #expect(deliveredIds.count == stats.eventsDelivered)
        for (id, result) in results {
            #expect((result == .delivered) == deliveredIds.contains(id), "\(id): \(result)")
            if case .gaveUp(let reason, _) = result { #expect(reason == .rejected(status: 400)) }
        }
        for u in 0..<13 {
            let submitted = events.filter { $0.orderingKey == "u\(u)" }.map(\.messageId)
            let delivered = deliveredOrder["u\(u)"] ?? []
            var it = submitted.makeIterator()
            let isSubsequence = delivered.allSatisfy { d in
                while let s = it.next() { if s == d { return true } }
                return false
            }
            #expect(isSubsequence, "u\(u) delivered out of order")
        }
        #expect(stats.batchesSplit > 0)
        #expect(stats.batchesRetried > 0)
    }
}
