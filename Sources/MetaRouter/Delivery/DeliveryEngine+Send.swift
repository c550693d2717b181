import Foundation
import Logging

/// Sending one batch: the shell that runs a ``BatchDelivery`` machine's actions.
extension DeliveryEngine {
    /// Delivers `batch` from lane `i`: sends, sleeps and reports outcomes as its
    /// ``BatchDelivery`` machine decides (retries, 413 halving, 4xx bisection, the breaker).
    /// Returns false when the engine stopped (the batch's unsettled events are then reported not delivered).
    func deliver(_ batch: [Pending], lane i: Int) async -> Bool {
        var machine = BatchDelivery(batch)
        var tracer = BatchTracer(lane: i)
        while true {
            if stopCauseStorage != nil {
                if let trace = tracer.stopped() { batchObserver?(trace) }
                settleNotDelivered(machine.remaining)
                return false
            }
            switch machine.next(now: clock.now, policy: &policy) {
            case .finished:
                return true
            case .wait(let until):
                await sleepLane(i, until: until)
            case .waitForProbe:
                await withCheckedContinuation { probeWaiters.append($0) }
            case .send(let events, _):
                let sentAt = clock.wallClock
                let (response, bodyBytes) = await send(events, sentAt: sentAt)
                let verdict = machine.received(response, now: clock.now, wallClock: clock.wallClock,
                                               random: random.nextDouble(), policy: &policy)
                // Any answer may have closed the breaker or ended a probe: waiting lanes ask again.
                resumeAll(&probeWaiters)
                if batchObserver != nil {
                    trace(verdict, response, events: events, bodyBytes: bodyBytes, sentAt: sentAt, tracer: &tracer)
                }
                apply(verdict, answer: response)
            }
        }
    }

    /// Hands the observer the trace of a piece that ended after trouble (before its outcomes).
    private func trace(
        _ verdict: BatchDelivery<Pending>.Verdict, _ response: DeliveryResponse, events: [Pending], bodyBytes: Int,
        sentAt: Date, tracer: inout BatchTracer
    ) {
        var attempt = BatchTrace.Attempt(
            atMillis: Int64((sentAt.timeIntervalSince1970 * 1000).rounded(.down)), breaker: traceBreakerState)
        switch response {
        case .status(let code, _):
            attempt.status = code
            attempt.retryAfter = response.header("Retry-After").flatMap { HTTPTime.retryAfter($0, now: clock.wallClock) }
        case .networkError(let message), .tlsFailure(let message):
            attempt.error = message
        }
        if case .retry(let retry) = verdict { attempt.wait = retry.wait }
        let lane = tracer.lane
        let finished = tracer.answered(
            verdict, attempt: attempt,
            makeTrace: {
                BatchTrace(id: 0, parent: nil, lane: lane, tags: traceTags(events), bodyBytes: bodyBytes,
                           attempts: [], outcome: .pending)
            },
            newId: { takeTraceId() })
        if let finished { batchObserver?(finished) }
    }

    /// Performs what a ``BatchDelivery`` verdict asks: outcomes, counters, logs, stopping.
    func apply(_ verdict: BatchDelivery<Pending>.Verdict, answer response: DeliveryResponse) {
        switch verdict {
        case .delivered(let events):
            counters.batchesSucceeded += 1
            settle(events, .delivered)
        case .retry(let retry):
            if retry.breakerOpened {
                counters.breakerOpened += 1
                logger.warning("circuit breaker opened",
                               metadata: ["cooldown": "\(policy.breaker.lastCooldown)", "last": "\(response.statsKey)"])
            }
            if retry.retryAfterHonored { counters.retryAfterHonored += 1 }
            counters.batchesRetried += 1
            logger.debug("retrying batch", metadata: ["answer": "\(response.statsKey)", "wait": "\(retry.wait)"])
        case .split:
            counters.batchesSplit += 1
        case .giveUp(let events, let reason):
            settle(events, .gaveUp(reason: reason, detail: Self.giveUpDetail(reason, events)))
        case .stop(let cause):
            stop(cause)
        }
    }

    /// The detail reported with a give-up from an answer about `events` (one event).
    static func giveUpDetail(_ reason: GiveUpReason, _ events: [Pending]) -> String {
        switch reason {
        case .tooLarge:
            return "the endpoint answered 413 for this event alone (\(events.first?.size ?? 0) bytes as sent)"
        case .rejected(let status):
            return "the endpoint answered \(status) for this event alone"
        }
    }

    /// Builds and sends the request for `batch`, counting it. Returns the answer and the size
    /// of the body before compression.
    func send(_ batch: [Pending], sentAt date: Date) async -> (DeliveryResponse, Int) {
        let sentAt = Timestamp.iso8601(date)
        counters.batchesSent += 1
        let response: DeliveryResponse
        let bodyBytes: Int
        if configuration.gzip {
            // Encoding and compression (a few hundred µs per 100-event batch) run off the actor,
            // together with the request: submits and other lanes go on meanwhile, and the lane
            // does not hop back to the actor between compressing and sending.
            (response, bodyBytes) = await compressAndSend(batch, sentAt: sentAt)
        } else {
            // Encoding is a plain copy: it stays on the actor.
            let body = encoder.body(batch, sentAt: sentAt)
            bodyBytes = body.count
            response = await transport.send(request(body: body, gzipped: false))
        }
        counters.responses[response.statsKey, default: 0] += 1
        return (response, bodyBytes)
    }

    /// The request carrying `body` (only immutable settings are read, so no actor hop is needed).
    nonisolated func request(body: [UInt8], gzipped: Bool) -> DeliveryRequest {
        var headers = baseHeaders
        if gzipped { headers.append(("Content-Encoding", "gzip")) }
        return DeliveryRequest(url: configuration.endpointURL, headers: headers, body: body, timeout: configuration.requestTimeout)
    }

    /// Encodes and gzips `batch` (sent uncompressed if compression fails) and sends it. A
    /// nonisolated async function: it runs on the global executor, not on the engine actor.
    nonisolated func compressAndSend(_ batch: [Pending], sentAt: String) async -> (DeliveryResponse, Int) {
        let body = encoder.body(batch, sentAt: sentAt)
        let zipped = try? Gzip.compress(body)
        return (await transport.send(request(body: zipped ?? body, gzipped: zipped != nil)), body.count)
    }
}
