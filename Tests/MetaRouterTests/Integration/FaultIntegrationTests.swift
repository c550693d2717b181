import Collector
import Foundation
@_spi(PerLine) import MetaRouter
import Testing

/// The engine and the real HTTP transport against an in-process collector that injects faults:
/// every good event arrives, none is lost, every give-up has a reason.
@Suite(.serialized) struct FaultIntegrationTests {
    @Test func randomFailuresResetsAndThrottlingLoseNothing() async throws {
        let events = Loopback.events(count: 2000)
        let r = try await Loopback.run(
            events,
            collector: {
                $0.faults = FaultConfiguration(
                    seed: 11, failureRate: 0.15, failureStatus: 503, throttleRate: 0.03,
                    retryAfter: 1, resetRate: 0.1, latency: .milliseconds(1))
            })
        expectRunInvariants(r, submitted: events)
        #expect(r.stats.eventsDelivered == 2000)
        #expect(r.deliveredIds.count == 2000)
        #expect(r.collector.unique == 2000)
        #expect(r.stats.batchesRetried > 0)
        #expect(r.stats.responses["503", default: 0] > 0, "\(r.stats.responses)")
        #expect(r.stats.responses["network_error", default: 0] > 0, "\(r.stats.responses) \(r.collector)")
        #expect(r.collector.resets <= r.stats.responses["network_error", default: 0], "every reset is seen as a network error")
        #expect(r.stats.retryAfterHonored == r.stats.responses["429", default: 0])
    }

    @Test(arguments: [(3, 500), (4, 502), (5, 408)])
    func eachRetryableStatusIsRetriedUntilDelivered(seed: Int, status: Int) async throws {
        let events = Loopback.events(count: 600)
        let r = try await Loopback.run(
            events,
            collector: {
                $0.faults = FaultConfiguration(seed: UInt64(seed), failureRate: 0.3, failureStatus: status)
            })
        expectRunInvariants(r, submitted: events)
        #expect(r.stats.eventsDelivered == 600)
        #expect(r.stats.responses[String(status), default: 0] > 0)
        #expect(r.stats.batchesRetried == r.stats.responses[String(status), default: 0])
    }

    /// An outage of the first requests (counted, not timed: a 300 ms window from the collector's
    /// start was over before a loaded machine sent anything; `DownWindow` itself is checked
    /// against the injector's clock in CollectorTests).
    @Test func anOutageOpensTheBreakerAndEverythingIsStillDelivered() async throws {
        let events = Loopback.events(count: 1500)
        let r = try await Loopback.run(
            events,
            collector: {
                $0.faults = FaultConfiguration(failureStatus: 503, failFirst: 6)
                $0.faults.latency = .milliseconds(2)
            })
        expectRunInvariants(r, submitted: events)
        #expect(r.stats.eventsDelivered == 1500)
        #expect(r.stats.breakerOpened >= 1)
        #expect(r.stats.responses["503", default: 0] == 6)
        #expect(r.collector.responses(503) == r.stats.responses["503", default: 0])
    }

    @Test func failFirstRequestsAreRetriedInOrder() async throws {
        let events = Loopback.events(count: 900, users: 5)
        let r = try await Loopback.run(
            events,
            collector: {
                $0.faults = FaultConfiguration(failureStatus: 502, failFirst: 7)
            })
        expectRunInvariants(r, submitted: events)
        #expect(r.stats.eventsDelivered == 900)
        #expect(r.stats.responses["502", default: 0] == 7)
        #expect(r.stats.batchesRetried == 7)
        #expect(r.stats.breakerOpened >= 1)
    }

    @Test func strictModeGivesUpExactlyTheInvalidEventsAsRejected400() async throws {
        let events = Loopback.events(count: 1200, invalidEvery: 97)
        let invalid = Set(events.enumerated().filter { $0.offset % 97 == 96 }.map(\.element.messageId))
        #expect(invalid.count == 12)
        let r = try await Loopback.run(
            events,
            collector: {
                $0.strict = true
                $0.faults = FaultConfiguration(seed: 9, failureRate: 0.1, failureStatus: 500)
            })
        expectRunInvariants(r, submitted: events)
        let givenUp = r.outcomes.filter {
            if case .gaveUp(reason: .rejected(status: 400), _) = $0.result { return true } else { return false }
        }
        #expect(Set(givenUp.map(\.messageId)) == invalid)
        #expect(r.stats.givenUpReasons == ["rejected_400": 12])
        #expect(r.stats.eventsDelivered == 1200 - 12)
        #expect(r.deliveredIds.isDisjoint(with: invalid))
        #expect(r.stats.batchesSplit > 0)
    }

    @Test func oversizeAnswers413AreSplitAndSingleOversizeEventsGivenUpTooLarge() async throws {
        // Events of ~4 KB in batches of 200 make ~800 KB bodies: over the collector's 500,000 bytes.
        var events = Loopback.events(count: 400, padding: 4000)
        // Two events over the collector's 32 KiB but under the engine's cap: 413 alone -> too_large.
        let bigByCollector = Loopback.events(count: 2, padding: 34_000).enumerated().map { k, e -> EncodedEvent in
            var e = e
            e.tag = UInt64(1000 + k)
            e.messageId = "collector-big-\(k)"
            e.bytes = Array(
                String(decoding: e.bytes, as: UTF8.self)
                    .replacingOccurrences(of: "\"msg-\(k)\"", with: "\"collector-big-\(k)\"").utf8)
            return e
        }
        // One event over the engine's own cap: given up at submit, never sent.
        var bigByEngine = Loopback.events(count: 1, padding: 45_000)[0]
        bigByEngine.tag = 2000
        bigByEngine.messageId = "engine-big"
        bigByEngine.bytes = Array(
            String(decoding: bigByEngine.bytes, as: UTF8.self)
                .replacingOccurrences(of: "\"msg-0\"", with: "\"engine-big\"").utf8)
        events.insert(contentsOf: bigByCollector, at: 100)
        events.insert(bigByEngine, at: 250)

        let r = try await Loopback.run(
            events, collector: { $0.oversizeStatus = 413 },
            engine: {
                $0.maxBatchEvents = 200
                $0.maxEventBytes = 40_000
                $0.maxBatchBytes = 2_000_000
                $0.concurrency = 2
            })
        expectRunInvariants(r, submitted: events)
        #expect(r.stats.givenUpReasons == ["too_large": 3])
        let tooLarge = Set(
            r.outcomes.filter {
                if case .gaveUp(reason: .tooLarge, _) = $0.result { return true } else { return false }
            }.map(\.messageId))
        #expect(tooLarge == ["collector-big-0", "collector-big-1", "engine-big"])
        #expect(r.stats.eventsDelivered == 400)
        #expect(r.stats.responses["413", default: 0] > 2)
        #expect(r.stats.batchesSplit > 0)
        #expect(!(r.storedIds.contains("engine-big")))
    }
}
