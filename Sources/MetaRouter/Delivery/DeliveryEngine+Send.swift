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
        counters.batchesSent += 1
        let response: DeliveryResponse
        if configuration.gzip {
            // Encoding and compression (a few hundred µs per 100-event batch) run off the actor,
            // together with the request: submits and other lanes go on meanwhile, and the lane
            // does not hop back to the actor between compressing and sending.
            response = await compressAndSend(batch, sentAt: sentAt)
        } else {
            // Encoding is a plain copy: it stays on the actor.
            response = await transport.send(request(body: encoder.body(batch, sentAt: sentAt), gzipped: false))
        }
        counters.responses[response.statsKey, default: 0] += 1
        return response
    }

    /// The request carrying `body` (only immutable settings are read, so no actor hop is needed).
    nonisolated func request(body: [UInt8], gzipped: Bool) -> DeliveryRequest {
        var headers = baseHeaders
        if gzipped { headers.append(("Content-Encoding", "gzip")) }
        return DeliveryRequest(url: configuration.endpointURL, headers: headers, body: body, timeout: configuration.requestTimeout)
    }

    /// Encodes and gzips `batch` (sent uncompressed if compression fails) and sends it. A
    /// nonisolated async function: it runs on the global executor, not on the engine actor.
    nonisolated func compressAndSend(_ batch: [Pending], sentAt: String) async -> DeliveryResponse {
        let body = encoder.body(batch, sentAt: sentAt)
        let zipped = try? Gzip.compress(body)
        return await transport.send(request(body: zipped ?? body, gzipped: zipped != nil))
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
