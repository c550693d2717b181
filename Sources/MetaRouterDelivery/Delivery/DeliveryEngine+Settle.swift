/// Outcomes, stopping, and the end of a run.
extension DeliveryEngine {
    /// Reports `result` for each of `events` that has no outcome yet, then releases backpressure.
    func settle(_ events: some Collection<Pending>, _ result: EventOutcome.Result) {
        var outcomes: [EventOutcome] = []
        outcomes.reserveCapacity(events.count)
        // Delivered events: only the sequence number is read, no copy (and retain) of the bytes.
        // Given-up events carry their bytes, so the caller can dead-letter them.
        var givenUp = false
        if case .gaveUp = result { givenUp = true }
        for i in events.indices {
            guard let ref = unsettled.remove(events[i].seq) else { continue }
            outcomes.append(
                EventOutcome(
                    tag: ref.tag, messageId: ref.messageId, result: result,
                    givenUpBytes: givenUp ? Array(events[i].storage[events[i].range]) : nil))
        }
        count(outcomes.count, result)
        if !outcomes.isEmpty { onOutcomes(outcomes) }
        if unsettled.count < configuration.maxPendingEvents { submitWaiters.resumeAll() }
    }

    /// Reports `events` as not delivered because the engine stopped.
    func settleNotDelivered(_ events: some Collection<Pending>) {
        settle(events, .notDelivered(stopCauseStorage ?? .cancelled))
    }

    /// Reports every event still without an outcome as not delivered (the end of `finish`/`cancel`).
    func settleEverything() {
        guard !unsettled.isEmpty else { return }
        let cause = stopCauseStorage ?? .cancelled
        let outcomes = unsettled.removeAll().map { EventOutcome(tag: $0.tag, messageId: $0.messageId, result: .notDelivered(cause)) }
        count(outcomes.count, .notDelivered(cause))
        onOutcomes(outcomes)
    }

    func count(_ n: Int, _ result: EventOutcome.Result) {
        guard n > 0 else { return }
        switch result {
        case .delivered: counters.eventsDelivered += n
        case .gaveUp(let reason, _):
            counters.eventsGivenUp += n
            counters.givenUpReasons[reason.rawValue, default: 0] += n
        case .notDelivered: counters.eventsNotDelivered += n
        }
    }

    /// Stops the engine (the first cause wins): queued events are reported not delivered, waiting
    /// lanes are woken or have their sleep cancelled; requests in flight finish on their own.
    func stop(_ cause: StopCause) {
        guard stopCauseStorage == nil else { return }
        stopCauseStorage = cause
        if cause != .cancelled {
            logger.warning("delivery stopped", metadata: ["cause": "\(cause)"])
        }
        for i in lanes.indices {
            let rest = Array(lanes[i].queue)
            lanes[i].queue.removeAll()
            lanes[i].bytes = 0
            settleNotDelivered(rest)
            if lanes[i].sleeping { lanes[i].abort?.resume() }
            wake(i)
        }
        wakeProbeWaiters()
        submitWaiters.resumeAll()
    }

    /// `cancel`'s grace is over: abandon requests still in flight.
    func graceExpired() {
        guard phase == .running, activeWorkers > 0, !abandoned else { return }
        abandoned = true
        for lane in lanes { lane.abort?.resume() }
        settleEverything()
        drainWaiters.resumeAll()
    }
}
