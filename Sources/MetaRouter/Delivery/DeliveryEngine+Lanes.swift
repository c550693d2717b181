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
        if let c = lanes[i].wakeup {
            lanes[i].wakeup = nil
            c.resume()
        }
    }

    /// Wakes every lane that has something to send.
    func wakeReadyLanes() {
        for i in lanes.indices where isReady(i) { wake(i) }
    }

    func startWorkersIfNeeded() {
        guard !workersStarted else { return }
        workersStarted = true
        for i in lanes.indices {
            activeWorkers += 1
            lanes[i].task = Task(executorPreference: laneExecutor) { await self.runLane(i) }
        }
    }

    /// One lane's worker: take a batch, deliver it (with retries), repeat until closed or stopped.
    func runLane(_ i: Int) async {
        while let batch = await takeBatch(i) {
            batchesOut += 1
            _ = await deliver(batch, lane: i)
            batchesOut -= 1
            if batchesOut == 0 && !submitWaiters.isEmpty { wakeReadyLanes() }
        }
        activeWorkers -= 1
        if activeWorkers == 0 { resumeAll(&drainWaiters) }
    }

    /// Waits until lane `i` is ready and removes the next batch (event cap and exact byte cap).
    /// Returns nil when the engine is closing and the lane is empty, or when it stopped.
    func takeBatch(_ i: Int) async -> [Pending]? {
        while true {
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

    /// Suspends until the continuation handed to `wait` is resumed, unless `done()` holds when
    /// the wait begins. Every wait of the engine goes through here: on an event-loop executor,
    /// the call may suspend before its body runs, so a condition checked before it could change
    /// (and its resume be lost) in between; `done` is checked where the continuation is parked.
    func park(unless done: () -> Bool, _ wait: (CheckedContinuation<Void, Never>) -> Void) async {
        await withCheckedContinuation { continuation in
            if done() { continuation.resume() } else { wait(continuation) }
        }
    }

    /// Wakes the lanes waiting for the breaker's probe, so they ask their machines again.
    func wakeProbeWaiters() {
        probeWakeups &+= 1
        resumeAll(&probeWaiters)
    }

    func resumeAll(_ waiters: inout [CheckedContinuation<Void, Never>]) {
        let w = waiters
        waiters.removeAll()
        for c in w { c.resume() }
    }
}
