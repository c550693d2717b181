/// Lanes: routing events by ordering key, forming batches, and the per-lane worker loop.
extension DeliveryEngine {
    /// The lane for `event`: ``LaneRouting`` on its ordering key, or round-robin without one.
    func laneIndex(for event: EncodedEvent) -> Int {
        guard let key = event.orderingKey else {
            nextKeylessLane = (nextKeylessLane + 1) % lanes.count
            return nextKeylessLane
        }
        return LaneRouting.lane(forKey: LaneRouting.laneKey(forOrderingKey: key), laneCount: lanes.count)
    }

    /// Whether lane `i` should send a batch now.
    func isReady(_ i: Int) -> Bool {
        let count = lanes[i].queue.count
        guard count > 0 else { return false }
        if closing || lanes[i].flushRequested { return true }
        if count >= policy.batchLimit { return true }
        if BatchEncoder.bodySize(eventSizes: lanes[i].bytes, count: count) > configuration.maxBatchBytes { return true }
        // A quiet lane's partial batch goes once many later events were submitted, so it does
        // not hold back its caller's checkpoint (and outcome bookkeeping) while busy lanes run.
        if nextSeq - lanes[i].queue[lanes[i].queue.startIndex].seq >= staleAfter { return true }
        // A blocked submitter needs an outcome to go on. While a batch is out, its settling will
        // give one; with none out, partial batches must go now or nothing would ever settle.
        return !submitWaiters.isEmpty && batchesOut == 0
    }

    /// Resumes lane `i`'s worker if it waits for events.
    func wake(_ i: Int) {
        if let w = lanes[i].wakeup {
            lanes[i].wakeup = nil
            w.resume()
        }
    }

    /// Wakes every lane that has something to send.
    func wakeReadyLanes() {
        for i in lanes.indices where isReady(i) { wake(i) }
    }

    /// Lane `i`'s worker, a child task of ``runLanes()``, until it ends or `abort` is resumed
    /// (then the worker is cancelled: a wait on the clock or a request in flight ends).
    func runLane(_ i: Int, abort: Wakeup) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.work(lane: i) }
            group.addTask { await abort.wait() }
            await group.next()
            group.cancelAll()
        }
    }

    /// One lane's worker: take a batch, deliver it (with retries), repeat until closed or stopped.
    private func work(lane i: Int) async {
        while let batch = await takeBatch(i) {
            batchesOut += 1
            _ = await deliver(batch, lane: i)
            batchesOut -= 1
            if batchesOut == 0 && !submitWaiters.isEmpty { wakeReadyLanes() }
        }
        activeWorkers -= 1
        if activeWorkers == 0 { drainWaiters.resumeAll() }
    }

    /// Waits until lane `i` is ready and removes the next batch (event cap and exact byte cap).
    /// Returns nil when the engine is closing and the lane is empty, or when it stopped.
    func takeBatch(_ i: Int) async -> [Pending]? {
        while true {
            if Task.isCancelled { stop(.cancelled) }
            if stopCauseStorage != nil {
                let rest = Array(lanes[i].queue)
                lanes[i].queue.removeAll()
                lanes[i].bytes = 0
                settleNotDelivered(rest)
                return nil
            }
            if isReady(i) { return popBatch(i) }
            if closing && lanes[i].queue.isEmpty { return nil }
            await park(unless: { stopCauseStorage != nil || isReady(i) || (closing && lanes[i].queue.isEmpty) }) {
                lanes[i].wakeup = $0
            }
            lanes[i].wakeup = nil
        }
    }

    func popBatch(_ i: Int) -> [Pending] {
        var batch: [Pending] = []
        var sizes = 0
        batch.reserveCapacity(min(policy.batchLimit, lanes[i].queue.count))
        while !lanes[i].queue.isEmpty, batch.count < policy.batchLimit {
            let size = lanes[i].queue[lanes[i].queue.startIndex].size
            let body = BatchEncoder.bodySize(eventSizes: sizes + size, count: batch.count + 1)
            if !batch.isEmpty && body > configuration.maxBatchBytes { break }
            batch.append(lanes[i].queue.removeFirst())
            sizes += size
            lanes[i].bytes -= size
        }
        if lanes[i].queue.isEmpty { lanes[i].flushRequested = false }
        return batch
    }

    /// Sleeps lane `i` on the engine clock; `stop` cancels the sleep.
    func sleepLane(_ i: Int, until deadline: Duration) async {
        guard stopCauseStorage == nil else { return }
        lanes[i].sleeping = true
        try? await clock.sleep(until: deadline)
        lanes[i].sleeping = false
    }

    /// Suspends until the ``Wakeup`` handed to `register` is resumed or the calling task is
    /// cancelled, unless `done()` holds. Every wait of the engine goes through here; `register`
    /// stores the wake-up where the waker finds it, and the wake-up itself keeps a resume that
    /// comes before the wait suspends (see ``Wakeup``).
    func park(unless done: () -> Bool, _ register: (Wakeup) -> Void) async {
        guard !done() else { return }
        let wakeup = Wakeup()
        register(wakeup)
        await wakeup.wait()
    }

    /// Wakes the lanes waiting for the breaker's probe, so they ask their machines again.
    func wakeProbeWaiters() {
        probeWakeups &+= 1
        probeWaiters.resumeAll()
    }
}
