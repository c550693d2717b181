import Foundation
@_spi(PerLine) import MetaRouter
import Testing

@_spi(PerLine) @testable import MetaRouterDelivery

/// What a driven ``BatchDelivery`` did, step by step.
struct MachineTrace {
    var sends: [(at: Duration, events: [Int], probe: Bool)] = []
    var delivered: [Int] = []
    var givenUp: [(event: Int, reason: GiveUpReason)] = []
    var splits: [[[Int]]] = []
    var retries: [BatchDelivery<Int>.Retry] = []
    var stop: StopCause?
    var remaining: [Int] = []
    var finished = false
    /// The machine asked to wait for a probe (a lone machine never should).
    var waitedForProbe = false

    var sendTimes: [Duration] { sends.map(\.at) }
    var sendSizes: [Int] { sends.map(\.events.count) }
}

/// Runs a machine for `batch` to its end against `answer`, moving a plain number for time:
/// a `wait(until:)` jumps to its deadline. No clock, no task, no sleep.
func drive(
    _ batch: [Int], policy: inout DeliveryPolicy, from start: Duration = .zero, random: Double = 0.5,
    wallClock: Date = Date(timeIntervalSince1970: 1_700_000_000),
    answer: (_ attempt: Int, _ events: [Int]) -> DeliveryResponse
) -> MachineTrace {
    var machine = BatchDelivery(batch)
    var trace = MachineTrace()
    var now = start
    for _ in 0..<10_000 {
        switch machine.next(now: now, policy: &policy) {
        case .finished:
            trace.finished = true
            return trace
        case .wait(let until):
            now = max(now, until)
        case .waitForProbe:
            trace.waitedForProbe = true
            return trace
        case .send(let events, let probe):
            trace.sends.append((now, events, probe))
            let response = answer(trace.sends.count - 1, events)
            let wall = wallClock.addingTimeInterval(now.seconds)
            switch machine.received(response, now: now, wallClock: wall, random: random, policy: &policy) {
            case .delivered(let e): trace.delivered += e
            case .retry(let r): trace.retries.append(r)
            case .split(let parts): trace.splits.append(parts)
            case .giveUp(let e, let reason): trace.givenUp += e.map { ($0, reason) }
            case .stop(let cause):
                trace.stop = cause
                trace.remaining = machine.remaining
                return trace
            }
        }
    }
    Issue.record("the machine did not finish in 10,000 steps")
    return trace
}

func ok() -> DeliveryResponse { .status(200, headers: []) }
func answer(_ code: Int, _ headers: [(String, String)] = []) -> DeliveryResponse { .status(code, headers: headers) }

func policy(_ edit: (inout DeliveryConfiguration) -> Void = { _ in }) -> DeliveryPolicy {
    DeliveryPolicy(configuration: config(edit), now: .zero)
}

/// One row of the status table: the first answer to a batch, what the machine decides and what
/// the breaker does (`failures` is the breaker's failure count afterwards).
struct StatusRow: Sendable, CustomTestStringConvertible {
    enum Expected: Sendable, Equatable {
        case delivered, retry, split, giveUp(GiveUpReason), stop(StopCause)
    }
    let response: DeliveryResponse
    let batchSize: Int
    let expected: Expected
    let failures: Int
    var testDescription: String { "\(response.statsKey) for \(batchSize) events" }

    static let table: [StatusRow] = [
        .init(response: answer(200), batchSize: 2, expected: .delivered, failures: 0),
        .init(response: answer(204), batchSize: 2, expected: .delivered, failures: 0),
        .init(response: answer(500), batchSize: 2, expected: .retry, failures: 1),
        .init(response: answer(503), batchSize: 2, expected: .retry, failures: 1),
        .init(response: answer(408), batchSize: 2, expected: .retry, failures: 1),
        .init(response: answer(429), batchSize: 2, expected: .retry, failures: 1),
        .init(response: .networkError("reset"), batchSize: 2, expected: .retry, failures: 1),
        .init(response: answer(413), batchSize: 2, expected: .split, failures: 0),
        .init(response: answer(413), batchSize: 1, expected: .giveUp(.tooLarge), failures: 0),
        .init(response: answer(400), batchSize: 2, expected: .split, failures: 0),
        .init(response: answer(400), batchSize: 1, expected: .giveUp(.rejected(status: 400)), failures: 0),
        .init(response: answer(422), batchSize: 1, expected: .giveUp(.rejected(status: 422)), failures: 0),
        .init(response: answer(409), batchSize: 1, expected: .giveUp(.rejected(status: 409)), failures: 0),
        .init(response: answer(401), batchSize: 2, expected: .stop(.fatalStatus(401)), failures: 0),
        .init(response: answer(403), batchSize: 2, expected: .stop(.fatalStatus(403)), failures: 0),
        .init(response: answer(404), batchSize: 1, expected: .stop(.fatalStatus(404)), failures: 0),
    ]
}

@Suite("BatchDelivery: the status table, without I/O or sleeping")
struct BatchDeliveryTests {
    @Test("the first answer decides as the status table says", arguments: StatusRow.table)
    func statusTableRow(_ row: StatusRow) {
        var p = policy()
        // One earlier failure is on the breaker: a retryable answer adds one, any other closes it.
        _ = p.breaker.recordFailure(now: .zero, probe: false, random: 0.5)
        var machine = BatchDelivery(Array(0..<row.batchSize))
        guard case .send(let events, probe: false) = machine.next(now: .zero, policy: &p) else {
            Issue.record("the first step is not a send")
            return
        }
        #expect(events == Array(0..<row.batchSize))
        let verdict = machine.received(row.response, now: .zero, wallClock: Date(), random: 0.5, policy: &p)
        let got: StatusRow.Expected? =
            switch verdict {
            case .delivered(let e): e == events ? .delivered : nil
            case .retry: .retry
            case .split(let parts): parts.flatMap { $0 } == events && parts.count == 2 ? .split : nil
            case .giveUp(let e, let reason): e == events ? .giveUp(reason) : nil
            case .stop(let cause): .stop(cause)
            }
        #expect(got == row.expected, "verdict \(verdict)")
        let expectedState: CircuitBreaker.State = .closed(failures: row.failures == 0 ? 0 : 2)
        #expect(p.breaker.state == expectedState)
    }

    @Test("the breaker's random value is drawn only for an answer that counts as a failure", arguments: StatusRow.table)
    func randomIsDrawnForFailuresOnly(_ row: StatusRow) {
        var p = policy()
        var machine = BatchDelivery(Array(0..<row.batchSize))
        _ = machine.next(now: .zero, policy: &p)
        var draws = 0
        func draw() -> Double {
            draws += 1
            return 0.5
        }
        let verdict = machine.received(row.response, now: .zero, wallClock: Date(), random: draw(), policy: &p)
        // `failures` is 1 exactly for the retryable answers, which count on the breaker.
        #expect(draws == row.failures, "verdict \(verdict)")
    }

    @Test("2xx delivers the whole batch in one request", arguments: [200, 201, 202, 204, 299])
    func success(code: Int) {
        var p = policy()
        let trace = drive(Array(0..<5), policy: &p) { _, _ in answer(code) }
        #expect(trace.sendSizes == [5])
        #expect(trace.delivered == [0, 1, 2, 3, 4])
        #expect(trace.finished)
        #expect(p.batchLimit == p.maxBatchEvents)
    }

    @Test(
        "retryable answers are retried after the floor, then delivered",
        arguments: [answer(500), answer(502), answer(503), answer(504), answer(408), answer(429), .networkError("refused")])
    func retryAfterTheFloor(failure: DeliveryResponse) {
        var p = policy()
        let trace = drive([7, 8], policy: &p) { attempt, _ in attempt == 0 ? failure : ok() }
        #expect(trace.sendTimes == [.zero, .seconds(1)])
        #expect(trace.retries == [.init(notBefore: .seconds(1), wait: .seconds(1), breakerOpened: false, retryAfterHonored: false)])
        #expect(trace.delivered == [7, 8])
        #expect(p.breaker.state == .closed(failures: 0), "the 2xx closed the breaker")
    }

    @Test("a 429 halves the rate limits until the next 2xx")
    func throttle() {
        var p = policy()
        var machine = BatchDelivery([1])
        _ = machine.next(now: .zero, policy: &p)
        _ = machine.received(answer(429), now: .zero, wallClock: Date(), random: 0.5, policy: &p)
        #expect(p.limiter.throttleLevel == 1)
        // One lane, no request limit: throttled to 1/2 request per second. The burst token goes
        // at 1 s; the next retry, due at 2 s, waits for the bucket until 3 s.
        #expect(machine.next(now: .seconds(1), policy: &p) == .send([1], probe: false))
        _ = machine.received(answer(503), now: .seconds(1), wallClock: Date(), random: 0.5, policy: &p)
        #expect(machine.next(now: .seconds(2), policy: &p) == .wait(until: .seconds(3)))
        #expect(machine.next(now: .seconds(3), policy: &p) == .send([1], probe: false))
        _ = machine.received(ok(), now: .seconds(3), wallClock: Date(), random: 0.5, policy: &p)
        #expect(p.limiter.throttleLevel == 0)
    }

    struct RetryAfterRow: Sendable, CustomTestStringConvertible {
        let status: Int
        let value: String
        let wait: Duration
        let honored: Bool
        var testDescription: String { "\(status) Retry-After: \(value)" }
    }

    @Test(
        "Retry-After in seconds or as an HTTP-date sets the wait when it is the longest",
        arguments: [
            RetryAfterRow(status: 429, value: "7", wait: .seconds(7), honored: true),
            RetryAfterRow(status: 503, value: "120", wait: .seconds(120), honored: true),
            RetryAfterRow(status: 503, value: "Tue, 14 Nov 2023 22:14:40 GMT", wait: .seconds(80), honored: true),
            RetryAfterRow(status: 429, value: "0", wait: .seconds(1), honored: false),
            RetryAfterRow(status: 429, value: "Tue, 14 Nov 2023 22:00:00 GMT", wait: .seconds(1), honored: false),
            RetryAfterRow(status: 503, value: "soon", wait: .seconds(1), honored: false),
        ])
    func retryAfter(_ row: RetryAfterRow) {
        var p = policy()
        // Wall time 1_700_000_000 is Tue, 14 Nov 2023 22:13:20 GMT.
        let trace = drive([1], policy: &p) { attempt, _ in attempt == 0 ? answer(row.status, [("Retry-After", row.value)]) : ok() }
        #expect(trace.retries.map(\.wait) == [row.wait])
        #expect(trace.retries.map(\.retryAfterHonored) == [row.honored])
        #expect(trace.sendTimes == [.zero, row.wait])
        #expect(trace.delivered == [1])
    }

    @Test("the breaker opens after 3 failures, probes after the jittered cooldown, doubles it on a failed probe")
    func breakerOpensAndProbes() {
        var p = policy()
        let trace = drive([1, 2], policy: &p, random: 0.75) { attempt, _ in attempt < 4 ? answer(503) : ok() }
        // 3 failures 1 s apart open the breaker for 10 s * (1 + 0.2 * 0.5) = 11 s; the failed probe
        // reopens it for 20 s * 1.1 = 22 s; the next probe succeeds.
        #expect(trace.sendTimes == [0, 1, 2, 13, 35].map { Duration.seconds($0) })
        #expect(trace.sends.map(\.probe) == [false, false, false, true, true])
        #expect(trace.retries.map(\.breakerOpened) == [false, false, true, true])
        #expect(trace.retries.map(\.wait) == [1, 1, 11, 22].map { Duration.seconds($0) })
        #expect(trace.delivered == [1, 2])
        #expect(p.breaker.state == .closed(failures: 0))
        #expect(p.breaker.nextCooldown == .seconds(10), "a successful probe resets the cooldown")
    }

    @Test("while the half-open probe is out, other batches wait for it; its success lets them go")
    func oneProbeAtATime() throws {
        var p = policy()
        for _ in 0..<3 { _ = p.breaker.recordFailure(now: .zero, probe: false, random: 0.5) }
        let openUntil = try #require(p.breaker.openUntil)
        var probe = BatchDelivery([1])
        var other = BatchDelivery([2])
        #expect(probe.next(now: .seconds(1), policy: &p) == .wait(until: openUntil))
        #expect(probe.next(now: openUntil, policy: &p) == .send([1], probe: true))
        #expect(other.next(now: openUntil, policy: &p) == .waitForProbe)
        #expect(other.next(now: openUntil + .seconds(5), policy: &p) == .waitForProbe)
        _ = probe.received(ok(), now: openUntil, wallClock: Date(), random: 0.5, policy: &p)
        #expect(other.next(now: openUntil, policy: &p) == .send([2], probe: false))
    }

    @Test("413 halves the batch down to the events that fit, and 2xx doubles the size back")
    func halving() {
        var p = policy { $0.maxBatchEvents = 8 }
        let trace = drive(Array(0..<8), policy: &p) { _, events in events.count > 2 ? answer(413) : ok() }
        #expect(trace.sendSizes == [8, 4, 2, 2, 4, 2, 2])
        #expect(trace.splits.map { $0.map(\.count) } == [[4, 4], [2, 2], [2, 2]])
        #expect(trace.delivered == Array(0..<8), "in order")
        #expect(p.batchLimit == 8)
    }

    @Test(
        "413 isolates a too-large event down to one event, which is given up too_large",
        arguments: [1, 2, 5, 8, 13], [0, 4])
    func halvingDownToOne(size: Int, tooLarge: Int) {
        var p = policy()
        let batch = Array(0..<size)
        let trace = drive(batch, policy: &p) { _, events in events.contains(tooLarge) ? answer(413) : ok() }
        let expectGivenUp = batch.contains(tooLarge)
        #expect(trace.givenUp.map(\.event) == (expectGivenUp ? [tooLarge] : []))
        #expect(trace.givenUp.allSatisfy { $0.reason == .tooLarge })
        #expect(trace.delivered == batch.filter { $0 != tooLarge }, "the others are delivered, in order")
        #expect(trace.finished)
        if expectGivenUp { #expect(trace.sends.last(where: { $0.events == [tooLarge] }) != nil) }
    }

    @Test(
        "a 4xx rejection bisects down to exactly the bad events, given up rejected_<status>",
        arguments: [400, 422, 409, 410], [[3], [0, 7], [5, 6, 7], [0, 1, 2, 3, 4, 5, 6, 7]])
    func bisection(code: Int, bad: [Int]) {
        var p = policy()
        let trace = drive(Array(0..<8), policy: &p) { _, events in events.contains(where: bad.contains) ? answer(code) : ok() }
        #expect(trace.givenUp.map(\.event) == bad)
        #expect(trace.givenUp.allSatisfy { $0.reason == .rejected(status: code) })
        #expect(trace.delivered == (0..<8).filter { !bad.contains($0) })
        #expect(trace.splits.allSatisfy { $0.count == 2 }, "bisection makes halves")
        #expect(p.breaker.state == .closed(failures: 0))
        #expect(trace.finished)
    }

    @Test("401, 403 and 404 stop the engine and leave every unsettled event", arguments: [401, 403, 404])
    func fatal(code: Int) {
        var p = policy()
        let trace = drive(Array(0..<6), policy: &p) { _, _ in answer(code) }
        #expect(trace.stop == .fatalStatus(code))
        #expect(trace.remaining == Array(0..<6))
        #expect(trace.sendSizes == [6])
    }

    @Test("a fatal answer after a bisection leaves the delivered half out of the remaining events")
    func fatalAfterSplit() {
        var p = policy()
        // The whole batch is rejected, its first half delivered, and the second half answered 401.
        let codes = [400, 200, 401]
        let trace = drive(Array(0..<8), policy: &p) { attempt, _ in answer(codes[min(attempt, 2)]) }
        #expect(trace.delivered == [0, 1, 2, 3])
        #expect(trace.stop == .fatalStatus(401))
        #expect(trace.remaining == [4, 5, 6, 7])
    }

    @Test("a batch that fails maxAttempts times stops the engine with retriesExhausted", arguments: [1, 2, 4, 10])
    func maxAttempts(limit: Int) {
        var p = policy {
            $0.maxAttempts = limit
            $0.breaker.failureThreshold = 100
        }
        let trace = drive([1, 2, 3], policy: &p) { _, _ in answer(503) }
        #expect(trace.sends.count == limit)
        guard case .retriesExhausted(let why)? = trace.stop else {
            Issue.record("expected retriesExhausted, got \(String(describing: trace.stop))")
            return
        }
        #expect(why.contains("maxAttempts \(limit)"), "\(why)")
        #expect(trace.remaining == [1, 2, 3])
    }

    @Test("a batch that keeps failing past maxElapsed stops the engine with retriesExhausted")
    func maxElapsed() {
        var p = policy { $0.maxElapsed = .seconds(30) }
        let trace = drive([1], policy: &p) { _, _ in .networkError("refused") }
        // Attempts at 0, 1, 2 (breaker opens, 10 s), 12 (probe fails, 20 s): the next would be past 30 s.
        #expect(trace.sendTimes == [0, 1, 2, 12].map { Duration.seconds($0) })
        guard case .retriesExhausted(let why)? = trace.stop else {
            Issue.record("expected retriesExhausted, got \(String(describing: trace.stop))")
            return
        }
        #expect(why.contains("maxElapsed"), "\(why)")
        #expect(trace.remaining == [1])
    }

    @Test("the request rate limit makes a batch wait before it is sent")
    func rateLimit() {
        var p = policy { $0.requestsPerSecond = 2 }
        let first = drive([1], policy: &p) { _, _ in ok() }
        let second = drive([2], policy: &p) { _, _ in ok() }
        #expect(first.sendTimes == [.zero])
        #expect(second.sendTimes == [.milliseconds(500)], "the burst is one request; then 2 per second")
    }

    @Test("an empty batch has nothing to do")
    func emptyBatch() {
        var p = policy()
        var machine = BatchDelivery<Int>([])
        #expect(machine.next(now: .zero, policy: &p) == .finished)
        #expect(machine.remaining.isEmpty)
    }
}

@Suite("GiveUpReason: stable names")
struct GiveUpReasonTests {
    @Test(
        "each reason has the name dead letters and reports use, and parses back",
        arguments: [
            (GiveUpReason.tooLarge, "too_large"),
            (.rejected(status: 400), "rejected_400"),
            (.rejected(status: 422), "rejected_422"),
            (.rejected(status: 409), "rejected_409"),
        ])
    func names(reason: GiveUpReason, name: String) {
        #expect(reason.rawValue == name)
        #expect("\(reason)" == name)
        #expect(GiveUpReason(rawValue: name) == reason)
    }

    @Test("other strings are not reasons", arguments: ["", "too-large", "rejected_", "rejected_4x", "rejected_+400", "retries_exhausted"])
    func notReasons(text: String) {
        #expect(GiveUpReason(rawValue: text) == nil)
    }
}
