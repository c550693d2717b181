import Foundation
import GzipCodec
import Logging
import NIOCore
import Timestamps

/// Sending one batch: the shell that runs a ``BatchDelivery`` machine's actions.
extension DeliveryEngine {
    /// Delivers `batch` from lane `i`: sends, sleeps and reports outcomes as its
    /// ``BatchDelivery`` machine decides (retries, 413 halving, 4xx bisection, the breaker).
    /// Returns false when the engine stopped (the batch's unsettled events are then reported not delivered).
    func deliver(_ batch: [Pending], lane i: Int) async -> Bool {
        var machine = BatchDelivery(batch)
        var tracer = BatchTracer(lane: i)
        var body: BatchBody?
        while true {
            if Task.isCancelled { stop(.cancelled) }
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
                let asked = probeWakeups
                // An answer that came meanwhile has already woken the waiters.
                await park(unless: { probeWakeups != asked || stopCauseStorage != nil }) { probeWaiters.append($0) }
            case .send(let events, _):
                let sentAt = clock.wallClock
                let (response, bodyBytes) = await send(events, sentAt: sentAt, reusing: &body)
                let verdict = machine.received(
                    response, now: clock.now, wallClock: clock.wallClock,
                    random: random.nextDouble(), policy: &policy)
                // Any answer may have closed the breaker or ended a probe: waiting lanes ask again.
                wakeProbeWaiters()
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
                BatchTrace(
                    id: 0, parent: nil, lane: lane, tags: traceTags(events), bodyBytes: bodyBytes,
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
                logger.warning(
                    "circuit breaker opened",
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
    /// of the body before compression. `body` keeps the last body sent to a buffer transport: a
    /// retry of the same events is restamped in place instead of written again.
    func send(_ batch: [Pending], sentAt date: Date, reusing body: inout BatchBody?) async -> (DeliveryResponse, Int) {
        let sentAt = Timestamp.iso8601(date)
        counters.batchesSent += 1
        let response: DeliveryResponse
        let bodyBytes: Int
        if configuration.gzip {
            // Encoding and compression (a few hundred µs per 100-event batch) run off the actor,
            // together with the request: submits and other lanes go on meanwhile, and the lane
            // does not hop back to the actor between compressing and sending.
            (response, bodyBytes) = await compressAndSend(batch, sentAt: sentAt)
        } else if case .buffers(let lean) = sender {
            // The body is written once, into the buffer that is sent, and sent from this
            // isolation: on the transport's event loop, there is no thread hop.
            let buffer = self.body(for: batch, sentAt: sentAt, reusing: &body, allocator: lean.allocator)
            bodyBytes = buffer.readableBytes
            response = await lean.send(
                url: configuration.endpointURL, headers: baseHeaders, body: buffer,
                timeout: configuration.requestTimeout, isolation: self)
        } else {
            // Encoding is a plain copy: it stays on the actor.
            let body = encoder.body(batch, sentAt: sentAt)
            bodyBytes = body.count
            response = await sender.transport.send(request(body: body, gzipped: false))
        }
        counters.responses[response.statsKey, default: 0] += 1
        return (response, bodyBytes)
    }

    /// The body for `batch` stamped with `sentAt`: `body`'s buffer restamped when it holds the
    /// same events, else a new one (kept in `body`).
    private func body(
        for batch: [Pending], sentAt: String, reusing body: inout BatchBody?,
        allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        if var reused = body, reused.holds(batch) {
            body = nil  // the buffer is then uniquely referenced: restamped in place
            encoder.restamp(&reused.buffer, events: batch, sentAt: sentAt)
            body = reused
            return reused.buffer
        }
        var buffer = allocator.buffer(capacity: encoder.bodySize(batch))
        encoder.write(batch, sentAt: sentAt, into: &buffer)
        body = BatchBody(batch, buffer: buffer)
        return buffer
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
        let zipped = try? GzipCodec.compress(body)
        return (await sender.transport.send(request(body: zipped ?? body, gzipped: zipped != nil)), body.count)
    }
}

/// The last body a lane sent, and which events it holds (first and last sequence number, count).
struct BatchBody {
    var buffer: ByteBuffer
    let first: UInt64
    let last: UInt64
    let count: Int

    init(_ batch: [DeliveryEngine.Pending], buffer: ByteBuffer) {
        self.buffer = buffer
        first = batch.first?.seq ?? 0
        last = batch.last?.seq ?? 0
        count = batch.count
    }

    /// Whether this body holds exactly `batch` (a lane's batches are runs of its queue, in order).
    func holds(_ batch: [DeliveryEngine.Pending]) -> Bool {
        batch.count == count && batch.first?.seq == first && batch.last?.seq == last
    }
}
