import Logging

/// Sending one batch and applying the status table to the answer.
extension DeliveryEngine {
    /// Delivers `batch` from lane `i`: retries, splits on 413, bisects on rejections.
    /// Returns false when the engine stopped (the batch's events are then reported not delivered).
    func deliver(_ batch: [Pending], lane i: Int) async -> Bool {
        var attempts = 0
        var firstFailure: Duration?
        var notBefore = Duration.zero
        var rateReserved = false
        while true {
            if stopCauseStorage != nil {
                settleNotDelivered(batch)
                return false
            }
            if clock.now < notBefore {
                await sleepLane(i, until: notBefore)
                continue
            }
            if !rateReserved {
                rateReserved = true
                let wait = limiter.reserve(eventCount: batch.count, now: clock.now)
                if wait > .zero {
                    await sleepLane(i, until: clock.now + wait)
                    continue
                }
            }
            let probe: Bool
            switch breaker.acquire(now: clock.now) {
            case .waitUntil(let t):
                await sleepLane(i, until: t)
                continue
            case .waitForProbe:
                await withCheckedContinuation { probeWaiters.append($0) }
                continue
            case .proceed(let p):
                probe = p
            }
            rateReserved = false
            attempts += 1
            let response = await send(batch)
            let now = clock.now
            switch StatusAction.classify(response) {
            case .success:
                closeBreaker()
                limiter.recover(now: now)
                counters.batchesSucceeded += 1
                batchLimit = min(maxBatchEvents, batchLimit * 2)
                settle(batch, .delivered)
                return true
            case .retry:
                if breaker.recordFailure(now: now, probe: probe, random: random.nextDouble()) {
                    counters.breakerOpened += 1
                    logger.warning("circuit breaker opened",
                                   metadata: ["cooldown": "\(breaker.lastCooldown)", "last": "\(response.statsKey)"])
                }
                if probe { resumeAll(&probeWaiters) }
                if case .status(429, _) = response { limiter.throttle(now: now) }
                let first = firstFailure ?? now
                firstFailure = first
                let wait = retryWait(after: response, now: now)
                if attempts >= configuration.maxAttempts {
                    stop(.retriesExhausted("a batch of \(batch.count) events failed \(attempts) attempts (maxAttempts \(configuration.maxAttempts)); last answer \(response.statsKey)"))
                } else if now + wait - first > configuration.maxElapsed {
                    stop(.retriesExhausted("a batch of \(batch.count) events kept failing for longer than maxElapsed \(configuration.maxElapsed); last answer \(response.statsKey)"))
                } else {
                    counters.batchesRetried += 1
                    logger.debug("retrying batch", metadata: ["events": "\(batch.count)", "answer": "\(response.statsKey)", "wait": "\(wait)"])
                    notBefore = now + wait
                }
            case .tooLarge:
                closeBreaker()
                guard batch.count > 1 else {
                    settle(batch, .gaveUp(reason: "too_large", detail: "the endpoint answered 413 for this event alone (\(batch[0].size) bytes as sent)"))
                    return true
                }
                counters.batchesSplit += 1
                batchLimit = max(1, min(batchLimit, batch.count / 2))
                var rest = batch[...]
                while !rest.isEmpty {
                    let chunk = Array(rest.prefix(batchLimit))
                    rest = rest.dropFirst(chunk.count)
                    guard await deliver(chunk, lane: i) else {
                        settleNotDelivered(rest)
                        return false
                    }
                }
                return true
            case .reject(let code):
                closeBreaker()
                guard batch.count > 1 else {
                    settle(batch, .gaveUp(reason: "rejected_\(code)", detail: "the endpoint answered \(code) for this event alone"))
                    return true
                }
                counters.batchesSplit += 1
                let mid = batch.count / 2
                guard await deliver(Array(batch[..<mid]), lane: i) else {
                    settleNotDelivered(batch[mid...])
                    return false
                }
                return await deliver(Array(batch[mid...]), lane: i)
            case .fatal(let code):
                closeBreaker()
                stop(.fatalStatus(code))
            }
        }
    }

    /// Builds and sends the request for `batch`, counting it.
    func send(_ batch: [Pending]) async -> DeliveryResponse {
        let sentAt = Timestamp.iso8601(clock.wallClock)
        // With gzip, encoding and compression (~1 ms per 100-event batch) run off the actor, so
        // submits and other lanes go on meanwhile. Without it, encoding is a plain copy and stays
        // on the actor: no extra suspension point before the request.
        let body: [UInt8]
        let zipped: Bool
        if configuration.gzip {
            (body, zipped) = await Self.encodeBody(batch, encoder: encoder, sentAt: sentAt, gzip: true)
        } else {
            (body, zipped) = (encoder.body(batch, sentAt: sentAt), false)
        }
        var headers = baseHeaders
        if zipped { headers.append(("Content-Encoding", "gzip")) }
        let request = DeliveryRequest(url: configuration.endpointURL, headers: headers, body: body,
                                      timeout: configuration.requestTimeout)
        counters.batchesSent += 1
        let response = await transport.send(request)
        counters.responses[response.statsKey, default: 0] += 1
        return response
    }

    /// The request body for `batch`, gzipped when `gzip` is set and compression works. A
    /// nonisolated async function: it runs on the global executor, not on the engine actor.
    nonisolated static func encodeBody(
        _ batch: [Pending], encoder: BatchEncoder, sentAt: String, gzip: Bool
    ) async -> (body: [UInt8], gzipped: Bool) {
        let body = encoder.body(batch, sentAt: sentAt)
        if gzip, let zipped = try? Gzip.compress(body) { return (zipped, true) }
        return (body, false)
    }

    /// wait = max(Retry-After, the breaker's remaining cooldown, the retry floor).
    func retryWait(after response: DeliveryResponse, now: Duration) -> Duration {
        var wait = configuration.retryFloor
        if let until = breaker.openUntil, until - now > wait { wait = until - now }
        if let value = response.header("Retry-After"),
           let asked = HTTPTime.retryAfter(value, now: clock.wallClock), asked >= wait {
            wait = asked
            counters.retryAfterHonored += 1
        }
        return wait
    }

    /// Any answer that is not a retryable failure shows the endpoint is up: close the breaker.
    func closeBreaker() {
        breaker.recordSuccess()
        resumeAll(&probeWaiters)
    }
}
