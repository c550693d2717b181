import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

/// The status table through the whole engine (lanes, clock, transport); the decisions alone are
/// tested row by row in `BatchDeliveryTests`.
@Suite(.serialized) struct EngineStatusTests {
    private func status(_ code: Int, _ headers: [(String, String)] = []) -> DeliveryResponse {
        .status(code, headers: headers)
    }

    @Test func retryableAnswersAreRetriedAfterTheFloorThenDelivered() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(
            clock: clock,
            sequence: [
                status(500), status(503), status(408), status(429), .networkError("reset"),
            ])
        let c = config { $0.breaker.failureThreshold = 100 }
        let (engine, stats, sink) = await runEngine(c, transport, clock: clock, events: [testEvent("a"), testEvent("b")])
        #expect(transport.requests.count == 6)
        #expect(sink.all.map(\.result) == [.delivered, .delivered])
        #expect(stats.batchesRetried == 5)
        #expect(stats.responses == ["500": 1, "503": 1, "408": 1, "429": 1, "network_error": 1, "200": 1])
        let times = transport.requests.map(\.at)
        for (a, b) in zip(times, times.dropFirst()) { #expect(b - a >= .seconds(1)) }
        #expect(times[0] == .zero)
        #expect(times[4] == .seconds(4))
        // The 429 throttled the limiter (1 lane -> 0.5 requests/s): the last retry waited 2 s, not 1.
        #expect(times[5] - times[4] == .seconds(2))
        let stopCause = await engine.stopCause
        #expect(stopCause == nil)
    }

    @Test func breakerOpensAfterThresholdAndProbesAfterCooldown() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock, sequence: [status(503), status(503), status(503), status(502)])
        let (_, stats, sink) = await runEngine(config(), transport, clock: clock, random: 0.75, events: [testEvent("a")])
        // 3 failures 1 s apart open the breaker for 10 s * (1 + 0.2 * 0.5) = 11 s; the failed probe
        // reopens it for 20 s * 1.1 = 22 s; the next probe succeeds.
        #expect(transport.requests.map(\.at) == [0, 1, 2, 13, 35].map { Duration.seconds($0) })
        #expect(stats.breakerOpened == 2)
        #expect(sink.all.map(\.result) == [.delivered])
    }

    @Test func onlyOneHalfOpenProbeWhileOtherLanesWait() async {
        let clock = TestClock(advancing: .automatically)
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
        #expect(r.count <= 7)
        let firstSuccess = r.firstIndex { $0.statusCode == 200 } ?? r.count
        // The breaker opens at the third failure. Each of the other two lanes may have had a
        // request already allowed by then, and the virtual clock can move on before such a
        // request reaches the transport, so it may be recorded a little later: the two requests
        // after the third are not asserted. Every request after those, before the first
        // success, is a probe; and the first success itself comes after the cooldown.
        let opened = r[2].at
        let lanesBesideTheOpener = c.concurrency - 1
        let probes = r[min(3 + lanesBesideTheOpener, firstSuccess)..<firstSuccess].map(\.at)
        #expect(Set(probes).count == probes.count, "one half-open probe at a time: \(r.map(\.at))")
        #expect(probes.allSatisfy { $0 >= opened + .seconds(8) }, "probes wait for the cooldown: \(r.map(\.at))")
        if firstSuccess < r.count {
            #expect(r[firstSuccess].at >= opened + .seconds(8), "success only after the cooldown: \(r.map(\.at))")
        }
        #expect(r[firstSuccess...].allSatisfy { $0.at >= (r[..<firstSuccess].last?.at ?? .zero) })
        #expect(stats.breakerOpened >= 1)
        #expect(sink.all.count == 3)
        #expect(sink.all.allSatisfy { $0.result == .delivered })
    }

    @Test func retryAfterSecondsIsHonored() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock, sequence: [status(429, [("Retry-After", "7")])])
        let (_, stats, _) = await runEngine(config(), transport, clock: clock, events: [testEvent("a")])
        #expect(transport.requests.map(\.at) == [.zero, .seconds(7)])
        #expect(stats.retryAfterHonored == 1)
    }

    @Test func retryAfterHTTPDateIsHonored() async {
        let clock = TestClock(advancing: .automatically, wallOrigin: Date(timeIntervalSince1970: 784_111_777 - 30))
        let transport = ScriptedTransport(
            clock: clock,
            sequence: [
                status(503, [("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT")])
            ])
        let (_, stats, _) = await runEngine(config(), transport, clock: clock, events: [testEvent("a")])
        #expect(transport.requests.map(\.at) == [.zero, .seconds(30)])
        #expect(stats.retryAfterHonored == 1)
    }

    @Test func retryAfterShorterThanTheFloorIsNotCounted() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock, sequence: [status(503, [("Retry-After", "0")])])
        let (_, stats, _) = await runEngine(config(), transport, clock: clock, events: [testEvent("a")])
        #expect(transport.requests.map(\.at) == [.zero, .seconds(1)])
        #expect(stats.retryAfterHonored == 0)
    }

    @Test func tooLargeHalvesDownToOneAndRecovers() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock) { _, events in
            events.count > 2 ? .status(413, headers: []) : .status(200, headers: [])
        }
        let c = config { $0.maxBatchEvents = 8 }
        let (engine, stats, sink) = await runEngine(c, transport, clock: clock, events: (0..<16).map { testEvent("m\($0)") })
        #expect(transport.requests.map(\.events.count) == [8, 4, 2, 2, 4, 2, 2, 8, 4, 2, 2, 4, 2, 2])
        #expect(stats.eventsDelivered == 16)
        #expect(stats.batchesSplit == 6)
        #expect(sink.all.count == 16)
        #expect(transport.requests.filter { $0.statusCode == 200 }.flatMap(\.messageIds) == (0..<16).map { "m\($0)" })
        let limit = await engine.currentBatchLimit
        #expect(limit == 8, "2xx doubles the batch size back to the initial")
    }

    @Test func tooLargeAtSizeOneGivesUpTooLarge() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock) { _, events in
            events.contains { $0["messageId"]?.stringValue == "huge" } ? .status(413, headers: []) : .status(200, headers: [])
        }
        let events = ["a", "huge", "b", "c"].map { testEvent($0) }
        let (_, stats, sink) = await runEngine(config(), transport, clock: clock, events: events)
        let results = sink.results()
        #expect(results.count == 4)
        #expect(results["a"] == .delivered)
        #expect(results["c"] == .delivered)
        guard case .gaveUp(let reason, _)? = results["huge"] else { Issue.record("huge should be given up"); return }
        #expect(reason == .tooLarge)
        #expect(stats.givenUpReasons == ["too_large": 1])
    }

    @Test(arguments: [400, 422, 409])
    func rejectionsBisectToIsolateExactlyTheBadEvents(code: Int) async {
        let clock = TestClock(advancing: .automatically)
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
                #expect(o.givenUpBytes == events[Int(o.tag)].bytes, "\(o.messageId)")
            } else {
                #expect(o.givenUpBytes == nil, "\(o.messageId)")
            }
        }
        for (id, result) in sink.results() {
            if bad.contains(id) {
                guard case .gaveUp(let reason, _) = result else { Issue.record("\(id) not given up"); continue }
                #expect(reason == .rejected(status: code))
            } else {
                #expect(result == .delivered, "\(id) with \(code)")
            }
        }
        #expect(sink.all.count == 10)
        #expect(stats.givenUpReasons == ["rejected_\(code)": 3])
        #expect(stats.eventsDelivered == 7)
        #expect(stats.batchesSplit > 0)
        let stopCause = await engine.stopCause
        #expect(stopCause == nil)
    }

    @Test(arguments: [401, 403, 404])
    func fatalStatusStopsAndReportsEveryEventNotDelivered(code: Int) async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock) { i, _ in i == 0 ? .status(200, headers: []) : .status(code, headers: []) }
        let sink = OutcomeSink()
        let engine = DeliveryEngine(
            configuration: config {
                $0.concurrency = 2; $0.maxBatchEvents = 5
            },
            transport: transport, clock: clock, onOutcomes: sink.callback)
        await running(engine) {
            var accepted = 0
            for i in 0..<40 where await engine.submit(testEvent("m\(i)", user: "u\(i % 3)")) { accepted += 1 }
            let stats = await engine.finish()
            let late = await engine.submit(testEvent("late"))
            #expect(!late, "a stopped engine refuses events")
            let stopCause = await engine.stopCause
            #expect(stopCause == .fatalStatus(code))
            #expect(sink.all.count == accepted, "every accepted event has exactly one outcome")
            #expect(Set(sink.all.map(\.messageId)).count == accepted)
            #expect(stats.eventsDelivered == 5)
            #expect(stats.eventsGivenUp == 0, "nothing is discarded")
            #expect(stats.eventsNotDelivered == accepted - 5)
            for o in sink.all where o.result != .delivered {
                #expect(o.result == .notDelivered(.fatalStatus(code)))
            }
        }
    }

    @Test func retriesExhaustedByAttempts() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock) { _, _ in .status(503, headers: []) }
        let c = config { $0.maxAttempts = 4 }
        let (engine, stats, sink) = await runEngine(c, transport, clock: clock, events: (0..<3).map { testEvent("m\($0)") })
        #expect(transport.requests.count == 4)
        #expect(sink.all.count == 3)
        let stopCause = await engine.stopCause
        guard case .retriesExhausted? = stopCause else { Issue.record("expected retriesExhausted, got \(String(describing: stopCause))"); return }
        for o in sink.all { #expect(o.result == .notDelivered(stopCause!)) }
        #expect(stats.eventsNotDelivered == 3)
    }

    @Test func retriesExhaustedByElapsedTime() async {
        let clock = TestClock(advancing: .automatically)
        let transport = ScriptedTransport(clock: clock) { _, _ in .networkError("refused") }
        let c = config { $0.maxElapsed = .seconds(30) }
        let (engine, _, sink) = await runEngine(c, transport, clock: clock, events: [testEvent("a")])
        // Attempts at 0, 1, 2 (breaker opens, 10 s), 12 (probe fails, 20 s): the next try would be past 30 s.
        #expect(transport.requests.map(\.at) == [0, 1, 2, 12].map { Duration.seconds($0) })
        let stopCause = await engine.stopCause
        guard case .retriesExhausted? = stopCause else { Issue.record("expected retriesExhausted"); return }
        #expect(sink.all.map(\.result) == [.notDelivered(stopCause!)])
    }
}
