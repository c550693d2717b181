import Foundation
import JSONCore
import XCTest

@testable import MetaRouter

final class EngineStatusTests: XCTestCase {
    private func status(_ code: Int, _ headers: [(String, String)] = []) -> DeliveryResponse {
        .status(code, headers: headers)
    }

    func testRetryableAnswersAreRetriedAfterTheFloorThenDelivered() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock, sequence: [
            status(500), status(503), status(408), status(429), .networkError("reset"),
        ])
        let c = config { $0.breaker.failureThreshold = 100 }
        let (engine, stats, sink) = await runEngine(c, transport, clock: clock, events: [testEvent("a"), testEvent("b")])
        XCTAssertEqual(transport.requests.count, 6)
        XCTAssertEqual(sink.all.map(\.result), [.delivered, .delivered])
        XCTAssertEqual(stats.batchesRetried, 5)
        XCTAssertEqual(stats.responses, ["500": 1, "503": 1, "408": 1, "429": 1, "network_error": 1, "200": 1])
        let times = transport.requests.map(\.at)
        for (a, b) in zip(times, times.dropFirst()) { XCTAssertGreaterThanOrEqual(b - a, .seconds(1)) }
        XCTAssertEqual(times[0], .zero)
        XCTAssertEqual(times[4], .seconds(4))
        // The 429 throttled the limiter (1 lane -> 0.5 requests/s): the last retry waited 2 s, not 1.
        XCTAssertEqual(times[5] - times[4], .seconds(2))
        let stopCause = await engine.stopCause
        XCTAssertNil(stopCause)
    }

    func testBreakerOpensAfterThresholdAndProbesAfterCooldown() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock, sequence: [status(503), status(503), status(503), status(502)])
        let (_, stats, sink) = await runEngine(config(), transport, clock: clock, random: 0.75, events: [testEvent("a")])
        // 3 failures 1 s apart open the breaker for 10 s * (1 + 0.2 * 0.5) = 11 s; the failed probe
        // reopens it for 20 s * 1.1 = 22 s; the next probe succeeds.
        XCTAssertEqual(transport.requests.map(\.at), [0, 1, 2, 13, 35].map { Duration.seconds($0) })
        XCTAssertEqual(stats.breakerOpened, 2)
        XCTAssertEqual(sink.all.map(\.result), [.delivered])
    }

    func testOnlyOneHalfOpenProbeWhileOtherLanesWait() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock, sequence: [status(503), status(503), status(503), status(503)])
        let c = config {
            $0.concurrency = 3
            $0.maxBatchEvents = 1
        }
        let (_, stats, sink) = await runEngine(c, transport, clock: clock, events: (0..<3).map { testEvent("m\($0)") })
        let r = transport.requests
        // 3 failures open the breaker; probes go out one at a time: while a probe is out no other
        // request is sent, so no two requests after the opening share an instant until one succeeds.
        // (Which lane fails first depends on scheduling, so the exact instants are not asserted.)
        XCTAssertLessThanOrEqual(r.count, 7)
        let firstSuccess = r.firstIndex { $0.statusCode == 200 } ?? r.count
        // The breaker opens at the third failure. Each of the other two lanes may have had a
        // request already allowed by then, and the virtual clock can move on before such a
        // request reaches the transport, so it may be recorded a little later: the two requests
        // after the third are not asserted. Every request after those, before the first
        // success, is a probe; and the first success itself comes after the cooldown.
        let opened = r[2].at
        let lanesBesideTheOpener = c.concurrency - 1
        let probes = r[min(3 + lanesBesideTheOpener, firstSuccess)..<firstSuccess].map(\.at)
        XCTAssertEqual(Set(probes).count, probes.count, "one half-open probe at a time: \(r.map(\.at))")
        XCTAssertTrue(probes.allSatisfy { $0 >= opened + .seconds(8) }, "probes wait for the cooldown: \(r.map(\.at))")
        if firstSuccess < r.count {
            XCTAssertGreaterThanOrEqual(r[firstSuccess].at, opened + .seconds(8), "success only after the cooldown: \(r.map(\.at))")
        }
        XCTAssertTrue(r[firstSuccess...].allSatisfy { $0.at >= (r[..<firstSuccess].last?.at ?? .zero) })
        XCTAssertGreaterThanOrEqual(stats.breakerOpened, 1)
        XCTAssertEqual(sink.all.count, 3)
        XCTAssertTrue(sink.all.allSatisfy { $0.result == .delivered })
    }

    func testRetryAfterSecondsIsHonored() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock, sequence: [status(429, [("Retry-After", "7")])])
        let (_, stats, _) = await runEngine(config(), transport, clock: clock, events: [testEvent("a")])
        XCTAssertEqual(transport.requests.map(\.at), [.zero, .seconds(7)])
        XCTAssertEqual(stats.retryAfterHonored, 1)
    }

    func testRetryAfterHTTPDateIsHonored() async {
        let clock = VirtualClock(wallOrigin: Date(timeIntervalSince1970: 784_111_777 - 30))
        let transport = ScriptedTransport(clock: clock, sequence: [
            status(503, [("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")]),
        ])
        let (_, stats, _) = await runEngine(config(), transport, clock: clock, events: [testEvent("a")])
        XCTAssertEqual(transport.requests.map(\.at), [.zero, .seconds(30)])
        XCTAssertEqual(stats.retryAfterHonored, 1)
    }

    func testRetryAfterShorterThanTheFloorIsNotCounted() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock, sequence: [status(503, [("Retry-After", "0")])])
        let (_, stats, _) = await runEngine(config(), transport, clock: clock, events: [testEvent("a")])
        XCTAssertEqual(transport.requests.map(\.at), [.zero, .seconds(1)])
        XCTAssertEqual(stats.retryAfterHonored, 0)
    }

    func test413HalvesDownToOneAndRecovers() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock) { _, events in
            events.count > 2 ? .status(413, headers: []) : .status(200, headers: [])
        }
        let c = config { $0.maxBatchEvents = 8 }
        let (engine, stats, sink) = await runEngine(c, transport, clock: clock, events: (0..<16).map { testEvent("m\($0)") })
        XCTAssertEqual(transport.requests.map(\.events.count), [8, 4, 2, 2, 4, 2, 2, 8, 4, 2, 2, 4, 2, 2])
        XCTAssertEqual(stats.eventsDelivered, 16)
        XCTAssertEqual(stats.batchesSplit, 6)
        XCTAssertEqual(sink.all.count, 16)
        XCTAssertEqual(transport.requests.filter { $0.statusCode == 200 }.flatMap(\.messageIds), (0..<16).map { "m\($0)" })
        let limit = await engine.currentBatchLimit
        XCTAssertEqual(limit, 8, "2xx doubles the batch size back to the initial")
    }

    func test413AtSizeOneGivesUpTooLarge() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock) { _, events in
            events.contains { $0["messageId"]?.stringValue == "huge" } ? .status(413, headers: []) : .status(200, headers: [])
        }
        let events = ["a", "huge", "b", "c"].map { testEvent($0) }
        let (_, stats, sink) = await runEngine(config(), transport, clock: clock, events: events)
        let results = sink.results()
        XCTAssertEqual(results.count, 4)
        XCTAssertEqual(results["a"], .delivered)
        XCTAssertEqual(results["c"], .delivered)
        guard case .gaveUp(let reason, _)? = results["huge"] else { return XCTFail("huge should be given up") }
        XCTAssertEqual(reason, "too_large")
        XCTAssertEqual(stats.givenUpReasons, ["too_large": 1])
    }

    func testRejectionsBisectToIsolateExactlyTheBadEvents() async {
        for code in [400, 422, 409] {
            let clock = VirtualClock()
            let bad: Set<String> = ["m3", "m6", "m7"]
            let transport = ScriptedTransport(clock: clock) { _, events in
                events.contains { bad.contains($0["messageId"]?.stringValue ?? "") }
                    ? .status(code, headers: []) : .status(200, headers: [])
            }
            let events = (0..<10).map { testEvent("m\($0)", tag: UInt64($0)) }
            let (engine, stats, sink) = await runEngine(config(), transport, clock: clock, events: events)
            // A given-up outcome carries the event's bytes (for the caller's dead letter); others none.
            for o in sink.all {
                if case .gaveUp = o.result {
                    XCTAssertEqual(o.givenUpBytes, events[Int(o.tag)].bytes, o.messageId)
                } else {
                    XCTAssertNil(o.givenUpBytes, o.messageId)
                }
            }
            for (id, result) in sink.results() {
                if bad.contains(id) {
                    guard case .gaveUp(let reason, _) = result else { XCTFail("\(id) not given up"); continue }
                    XCTAssertEqual(reason, "rejected_\(code)")
                } else {
                    XCTAssertEqual(result, .delivered, "\(id) with \(code)")
                }
            }
            XCTAssertEqual(sink.all.count, 10)
            XCTAssertEqual(stats.givenUpReasons, ["rejected_\(code)": 3])
            XCTAssertEqual(stats.eventsDelivered, 7)
            XCTAssertGreaterThan(stats.batchesSplit, 0)
            let stopCause = await engine.stopCause
            XCTAssertNil(stopCause)
        }
    }

    func testFatalStatusStopsAndReportsEveryEventNotDelivered() async {
        for code in [401, 403, 404] {
            let clock = VirtualClock()
            let transport = ScriptedTransport(clock: clock) { i, _ in i == 0 ? .status(200, headers: []) : .status(code, headers: []) }
            let sink = OutcomeSink()
            let engine = DeliveryEngine(configuration: config { $0.concurrency = 2; $0.maxBatchEvents = 5 },
                                        transport: transport, clock: clock, onOutcomes: sink.callback)
            var accepted = 0
            for i in 0..<40 where await engine.submit(testEvent("m\(i)", user: "u\(i % 3)")) { accepted += 1 }
            let stats = await engine.finish()
            let late = await engine.submit(testEvent("late"))
            XCTAssertFalse(late, "a stopped engine refuses events")
            let stopCause = await engine.stopCause
            XCTAssertEqual(stopCause, .fatalStatus(code))
            XCTAssertEqual(sink.all.count, accepted, "every accepted event has exactly one outcome")
            XCTAssertEqual(Set(sink.all.map(\.messageId)).count, accepted)
            XCTAssertEqual(stats.eventsDelivered, 5)
            XCTAssertEqual(stats.eventsGivenUp, 0, "nothing is discarded")
            XCTAssertEqual(stats.eventsNotDelivered, accepted - 5)
            for o in sink.all where o.result != .delivered {
                XCTAssertEqual(o.result, .notDelivered(.fatalStatus(code)))
            }
        }
    }

    func testRetriesExhaustedByAttempts() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock) { _, _ in .status(503, headers: []) }
        let c = config { $0.maxAttempts = 4 }
        let (engine, stats, sink) = await runEngine(c, transport, clock: clock, events: (0..<3).map { testEvent("m\($0)") })
        XCTAssertEqual(transport.requests.count, 4)
        XCTAssertEqual(sink.all.count, 3)
        let stopCause = await engine.stopCause
        guard case .retriesExhausted? = stopCause else { return XCTFail("expected retriesExhausted, got \(String(describing: stopCause))") }
        for o in sink.all { XCTAssertEqual(o.result, .notDelivered(stopCause!)) }
        XCTAssertEqual(stats.eventsNotDelivered, 3)
    }

    func testRetriesExhaustedByElapsedTime() async {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock) { _, _ in .networkError("refused") }
        let c = config { $0.maxElapsed = .seconds(30) }
        let (engine, _, sink) = await runEngine(c, transport, clock: clock, events: [testEvent("a")])
        // Attempts at 0, 1, 2 (breaker opens, 10 s), 12 (probe fails, 20 s): the next try would be past 30 s.
        XCTAssertEqual(transport.requests.map(\.at), [0, 1, 2, 12].map { Duration.seconds($0) })
        let stopCause = await engine.stopCause
        guard case .retriesExhausted? = stopCause else { return XCTFail("expected retriesExhausted") }
        XCTAssertEqual(sink.all.map(\.result), [.notDelivered(stopCause!)])
    }
}
