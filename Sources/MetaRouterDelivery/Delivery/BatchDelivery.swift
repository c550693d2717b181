import Foundation

/// The delivery of one batch as a pure state machine: the status table, 413 halving, 4xx
/// bisection, Retry-After, the retry budget and the breaker, with no I/O, no clock and no sleeping.
///
/// The engine's lane (the shell) asks ``next(now:policy:)`` what to do, performs the
/// ``Action`` (sends, sleeps on the engine clock, waits for a probe), and hands every answer to
/// ``received(_:now:wallClock:random:policy:)``, which returns a ``Verdict`` for the shell to
/// apply (report outcomes, count, stop the engine). Then it asks ``next(now:policy:)`` again,
/// until ``Action/finished``. A batch that is split goes on as its pieces, in order, inside the
/// same machine, so the events of a lane keep their order.
///
/// `Event` is the engine's queued event; tests drive the machine with plain values.
struct BatchDelivery<Event: Sendable>: Sendable {
    /// What the shell does next.
    enum Action: Sendable {
        /// Send these events now as one request. `probe` is true for the breaker's half-open
        /// probe. Hand the answer to ``BatchDelivery/received(_:now:wallClock:random:policy:)``.
        case send([Event], probe: Bool)
        /// Sleep until this engine time (a retry's backoff, the rate limit, the breaker's cooldown), then ask again.
        case wait(until: Duration)
        /// The breaker's half-open probes are out: wait until one is answered, then ask again.
        case waitForProbe
        /// Every event of the batch has a verdict.
        case finished
    }

    /// What an answer means for the events just sent.
    enum Verdict: Sendable {
        /// 2xx: report these events delivered.
        case delivered([Event])
        /// A retryable failure (5xx, 408, 429, network error): the same events go again at
        /// ``Retry/notBefore``.
        case retry(Retry)
        /// 413 (halving) or a 4xx rejection (bisection): the events go on as these pieces, in order.
        case split(into: [[Event]])
        /// Report these events (one, isolated by halving or bisection) given up for `reason`.
        case giveUp([Event], reason: GiveUpReason)
        /// Stop the engine: a fatal status or TLS failure, or the batch used up its retry budget.
        /// ``BatchDelivery/remaining`` are the events this batch leaves unsettled.
        case stop(StopCause)
    }

    /// A scheduled retry.
    struct Retry: Sendable, Equatable {
        /// The engine time of the next attempt.
        var notBefore: Duration
        /// The wait chosen: `max(Retry-After, the breaker's cooldown left, retryFloor)`.
        var wait: Duration
        /// This failure opened the circuit breaker.
        var breakerOpened: Bool
        /// The wait was set by the answer's `Retry-After`.
        var retryAfterHonored: Bool
    }

    /// The piece being delivered, with its attempt bookkeeping.
    private struct Piece: Sendable {
        var events: [Event]
        var attempts = 0
        var firstFailure: Duration?
        var notBefore = Duration.zero
        var rateReserved = false
        /// The request in flight, if one is: whether it is a breaker probe.
        var inFlight: Bool?
    }

    /// The piece being delivered; nil between pieces.
    private var current: Piece?
    /// Pieces still to deliver after ``current``, the next one last.
    private var pieces: [[Event]]
    /// A stop verdict was given.
    private(set) var stopped = false

    /// A machine for `batch`.
    init(_ batch: [Event]) {
        current = nil
        pieces = batch.isEmpty ? [] : [batch]
    }

    /// The events without a verdict yet, in order (the shell reports them not delivered when
    /// the engine stops).
    var remaining: [Event] {
        (current.map { [$0.events] } ?? []).flatMap { $0 } + pieces.reversed().flatMap { $0 }
    }

    /// What to do now. Must not be called while a request is in flight or after a stop verdict.
    mutating func next(now: Duration, policy: inout DeliveryPolicy) -> Action {
        precondition(!stopped, "a stopped batch has nothing more to do")
        if current == nil {
            guard let events = pieces.popLast() else { return .finished }
            current = Piece(events: events)
        }
        guard var piece = current else { return .finished }
        precondition(piece.inFlight == nil, "next() while a request is in flight")
        defer { current = piece }
        if now < piece.notBefore { return .wait(until: piece.notBefore) }
        if !piece.rateReserved {
            // Reserved once per attempt: waiting for the breaker afterwards keeps the reservation.
            piece.rateReserved = true
            let wait = policy.limiter.reserve(eventCount: piece.events.count, now: now)
            if wait > .zero {
                policy.rateLimitWaits += 1
                return .wait(until: now + wait)
            }
        }
        switch policy.breaker.acquire(now: now) {
        case .waitUntil(let until):
            return .wait(until: until)
        case .waitForProbe:
            return .waitForProbe
        case .proceed(let probe):
            piece.rateReserved = false
            piece.attempts += 1
            piece.inFlight = probe
            return .send(piece.events, probe: probe)
        }
    }

    /// Applies the answer to the request of the last ``Action/send(_:probe:)``.
    /// - Parameters:
    ///   - response: the status and headers, or the transport's error.
    ///   - now: the engine's monotonic time when the answer came.
    ///   - wallClock: the wall time then, for an HTTP-date `Retry-After`.
    ///   - random: a value in `0..<1` for the breaker's jitter, drawn only for an answer that
    ///     counts as a failure (the system's generator costs a system call per draw).
    mutating func received(
        _ response: DeliveryResponse, now: Duration, wallClock: Date, random: @autoclosure () -> Double,
        policy: inout DeliveryPolicy
    ) -> Verdict {
        guard var piece = current, let probe = piece.inFlight else {
            preconditionFailure("received() without a request in flight")
        }
        piece.inFlight = nil
        current = piece
        switch StatusAction.classify(response) {
        case .success:
            policy.breaker.recordSuccess()
            policy.limiter.recover(now: now)
            policy.batchLimit = min(policy.maxBatchEvents, policy.batchLimit * 2)
            current = nil
            return .delivered(piece.events)
        case .retry:
            return retry(after: response, probe: probe, now: now, wallClock: wallClock, random: random(), policy: &policy)
        case .tooLarge:
            policy.breaker.recordSuccess()
            guard piece.events.count > 1 else { return giveUp(.tooLarge) }
            policy.batchLimit = max(1, min(policy.batchLimit, piece.events.count / 2))
            let size = policy.batchLimit
            return split(
                into: stride(from: 0, to: piece.events.count, by: size).map {
                    Array(piece.events[$0..<min($0 + size, piece.events.count)])
                })
        case .reject(let status):
            policy.breaker.recordSuccess()
            guard piece.events.count > 1 else { return giveUp(.rejected(status: status)) }
            let mid = piece.events.count / 2
            return split(into: [Array(piece.events[..<mid]), Array(piece.events[mid...])])
        case .fatal(let status):
            policy.breaker.recordSuccess()
            stopped = true
            return .stop(.fatalStatus(status))
        case .fatalTLS(let why):
            policy.breaker.recordSuccess()
            stopped = true
            return .stop(.tlsFailure(why))
        }
    }

    /// A retryable failure: schedules the retry, or stops when the retry budget is used up.
    private mutating func retry(
        after response: DeliveryResponse, probe: Bool, now: Duration, wallClock: Date,
        random: Double, policy: inout DeliveryPolicy
    ) -> Verdict {
        guard var piece = current else { preconditionFailure("retry() without a piece") }
        let opened = policy.breaker.recordFailure(now: now, probe: probe, random: random)
        if case .status(429, _) = response { policy.limiter.throttle(now: now) }
        let first = piece.firstFailure ?? now
        piece.firstFailure = first
        let (wait, honored) = Self.retryWait(after: response, now: now, wallClock: wallClock, policy: policy)
        let count = piece.events.count
        if piece.attempts >= policy.maxAttempts {
            stopped = true
            return .stop(
                .retriesExhausted(
                    "a batch of \(count) events failed \(piece.attempts) attempts (maxAttempts \(policy.maxAttempts)); last answer \(response.statsKey)"
                ))
        }
        if now + wait - first > policy.maxElapsed {
            stopped = true
            return .stop(
                .retriesExhausted(
                    "a batch of \(count) events kept failing for longer than maxElapsed \(policy.maxElapsed); last answer \(response.statsKey)"))
        }
        piece.notBefore = now + wait
        current = piece
        return .retry(Retry(notBefore: now + wait, wait: wait, breakerOpened: opened, retryAfterHonored: honored))
    }

    /// wait = max(Retry-After, the breaker's remaining cooldown, the retry floor); `honored` when
    /// Retry-After set it.
    static func retryWait(
        after response: DeliveryResponse, now: Duration, wallClock: Date,
        policy: DeliveryPolicy
    ) -> (wait: Duration, honored: Bool) {
        var wait = policy.retryFloor
        if let until = policy.breaker.openUntil, until - now > wait { wait = until - now }
        if let value = response.header("Retry-After"),
            let asked = HTTPTime.retryAfter(value, now: wallClock), asked >= wait
        {
            return (asked, true)
        }
        return (wait, false)
    }

    /// The current piece, a single event, is given up.
    private mutating func giveUp(_ reason: GiveUpReason) -> Verdict {
        let events = current?.events ?? []
        current = nil
        return .giveUp(events, reason: reason)
    }

    /// The current piece goes on as `parts`, in order.
    private mutating func split(into parts: [[Event]]) -> Verdict {
        current = nil
        pieces.append(contentsOf: parts.reversed())
        return .split(into: parts)
    }
}

extension BatchDelivery.Action: Equatable where Event: Equatable {}
