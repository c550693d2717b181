import Collector
import XCTest

@testable import MetaRouter

/// The engine and the real HTTP transport against an in-process collector that injects faults:
/// every good event arrives, none is lost, every give-up has a reason.
final class FaultIntegrationTests: XCTestCase {
    func testRandomFailuresResetsAndThrottlingLoseNothing() async throws {
        let events = Loopback.events(count: 2000)
        let r = try await Loopback.run(events, collector: {
            $0.faults = FaultConfiguration(seed: 11, failureRate: 0.15, failureStatus: 503, throttleRate: 0.03,
                                           retryAfter: 1, resetRate: 0.1, latency: .milliseconds(1))
        })
        assertRunInvariants(r, submitted: events)
        XCTAssertEqual(r.stats.eventsDelivered, 2000)
        XCTAssertEqual(r.deliveredIds.count, 2000)
        XCTAssertEqual(r.collector.unique, 2000)
        XCTAssertGreaterThan(r.stats.batchesRetried, 0)
        XCTAssertGreaterThan(r.stats.responses["503", default: 0], 0, "\(r.stats.responses)")
        XCTAssertGreaterThan(r.stats.responses["network_error", default: 0], 0, "\(r.stats.responses) \(r.collector)")
        XCTAssertLessThanOrEqual(r.collector.resets, r.stats.responses["network_error", default: 0], "every reset is seen as a network error")
        XCTAssertEqual(r.stats.retryAfterHonored, r.stats.responses["429", default: 0])
    }

    func testEachRetryableStatusIsRetriedUntilDelivered() async throws {
        for (seed, status) in [(3, 500), (4, 502), (5, 408)] {
            let events = Loopback.events(count: 600)
            let r = try await Loopback.run(events, collector: {
                $0.faults = FaultConfiguration(seed: UInt64(seed), failureRate: 0.3, failureStatus: status)
            })
            assertRunInvariants(r, submitted: events)
            XCTAssertEqual(r.stats.eventsDelivered, 600, "status \(status)")
            XCTAssertGreaterThan(r.stats.responses[String(status), default: 0], 0, "status \(status)")
            XCTAssertEqual(r.stats.batchesRetried, r.stats.responses[String(status), default: 0], "status \(status)")
        }
    }

    func testDownWindowOpensTheBreakerAndEverythingIsStillDelivered() async throws {
        let events = Loopback.events(count: 1500)
        let r = try await Loopback.run(events, collector: {
            $0.faults.down = DownWindow(start: .zero, duration: .milliseconds(300))
            $0.faults.latency = .milliseconds(2)
        })
        assertRunInvariants(r, submitted: events)
        XCTAssertEqual(r.stats.eventsDelivered, 1500)
        XCTAssertGreaterThanOrEqual(r.stats.breakerOpened, 1)
        XCTAssertGreaterThanOrEqual(r.stats.responses["503", default: 0], 3)
        XCTAssertEqual(r.collector.responses(503), r.stats.responses["503", default: 0])
    }

    func testFailFirstRequestsAreRetriedInOrder() async throws {
        let events = Loopback.events(count: 900, users: 5)
        let r = try await Loopback.run(events, collector: {
            $0.faults = FaultConfiguration(failureStatus: 502, failFirst: 7)
        })
        assertRunInvariants(r, submitted: events)
        XCTAssertEqual(r.stats.eventsDelivered, 900)
        XCTAssertEqual(r.stats.responses["502", default: 0], 7)
        XCTAssertEqual(r.stats.batchesRetried, 7)
        XCTAssertGreaterThanOrEqual(r.stats.breakerOpened, 1)
    }

    func testStrictModeGivesUpExactlyTheInvalidEventsAsRejected400() async throws {
        let events = Loopback.events(count: 1200, invalidEvery: 97)
        let invalid = Set(events.enumerated().filter { $0.offset % 97 == 96 }.map(\.element.messageId))
        XCTAssertEqual(invalid.count, 12)
        let r = try await Loopback.run(events, collector: {
            $0.strict = true
            $0.faults = FaultConfiguration(seed: 9, failureRate: 0.1, failureStatus: 500)
        })
        assertRunInvariants(r, submitted: events)
        let givenUp = r.outcomes.filter {
            if case .gaveUp(reason: "rejected_400", _) = $0.result { return true } else { return false }
        }
        XCTAssertEqual(Set(givenUp.map(\.messageId)), invalid)
        XCTAssertEqual(r.stats.givenUpReasons, ["rejected_400": 12])
        XCTAssertEqual(r.stats.eventsDelivered, 1200 - 12)
        XCTAssertTrue(r.deliveredIds.isDisjoint(with: invalid))
        XCTAssertGreaterThan(r.stats.batchesSplit, 0)
    }

    func testOversizeAnswers413AreSplitAndSingleOversizeEventsGivenUpTooLarge() async throws {
        // Events of ~4 KB in batches of 200 make ~800 KB bodies: over the collector's 500,000 bytes.
        var events = Loopback.events(count: 400, padding: 4000)
        // Two events over the collector's 32 KiB but under the engine's cap: 413 alone -> too_large.
        let bigByCollector = Loopback.events(count: 2, padding: 34_000).enumerated().map { k, e -> EncodedEvent in
            var e = e
            e.tag = UInt64(1000 + k)
            e.messageId = "collector-big-\(k)"
            e.bytes = Array(String(decoding: e.bytes, as: UTF8.self)
                .replacingOccurrences(of: "\"msg-\(k)\"", with: "\"collector-big-\(k)\"").utf8)
            return e
        }
        // One event over the engine's own cap: given up at submit, never sent.
        var bigByEngine = Loopback.events(count: 1, padding: 45_000)[0]
        bigByEngine.tag = 2000
        bigByEngine.messageId = "engine-big"
        bigByEngine.bytes = Array(String(decoding: bigByEngine.bytes, as: UTF8.self)
            .replacingOccurrences(of: "\"msg-0\"", with: "\"engine-big\"").utf8)
        events.insert(contentsOf: bigByCollector, at: 100)
        events.insert(bigByEngine, at: 250)

        let r = try await Loopback.run(events, collector: { $0.oversizeStatus = 413 }, engine: {
            $0.maxBatchEvents = 200
            $0.maxEventBytes = 40_000
            $0.maxBatchBytes = 2_000_000
            $0.concurrency = 2
        })
        assertRunInvariants(r, submitted: events)
        XCTAssertEqual(r.stats.givenUpReasons, ["too_large": 3])
        let tooLarge = Set(r.outcomes.filter {
            if case .gaveUp(reason: "too_large", _) = $0.result { return true } else { return false }
        }.map(\.messageId))
        XCTAssertEqual(tooLarge, ["collector-big-0", "collector-big-1", "engine-big"])
        XCTAssertEqual(r.stats.eventsDelivered, 400)
        XCTAssertGreaterThan(r.stats.responses["413", default: 0], 2)
        XCTAssertGreaterThan(r.stats.batchesSplit, 0)
        XCTAssertFalse(r.storedIds.contains("engine-big"))
    }
}
