import ServiceLifecycle

/// Running the lanes, and the two ways to end: ``DeliveryEngine/finish()`` and ``DeliveryEngine/cancel(grace:)``.
extension DeliveryEngine {
    /// Where ``run()`` is.
    enum RunPhase {
        /// ``run()`` was not called yet: submitted events wait in their lanes.
        case idle
        /// ``run()`` runs the lanes.
        case running
        /// ``run()`` returned: no lane runs any more.
        case ended
    }

    /// Runs the engine: one child task per lane, each taking batches from its lane and delivering
    /// them, until ``finish()`` or ``cancel(grace:)`` has settled everything, or the engine stopped
    /// (a fatal answer, a used-up retry budget). A graceful shutdown of its service group is a
    /// ``finish()``: everything queued is sent first. Cancelling the task that runs it stops the
    /// engine at once: requests in flight are cancelled and every unsettled event is reported
    /// `.notDelivered(.cancelled)`.
    ///
    /// On an engine made with an event loop the lanes' tasks prefer that loop as their executor.
    /// An engine runs once: a second call returns at once.
    public func run() async {
        let shutdown = Wakeup()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    await shutdown.wait()
                    if !Task.isCancelled { await self.close() }
                }
                await runLanes()
                group.cancelAll()  // the graceful-shutdown watcher
            }
        } onGracefulShutdown: {
            shutdown.resume()
        }
    }

    /// Runs the lanes until every event is settled: ``run()`` and the scoped
    /// ``run(stop:onStop:isolation:_:)`` (whose owners handle stopping themselves) are its callers.
    func runLanes() async {
        guard phase == .idle else {
            logger.warning("DeliveryEngine.run() called on an engine that already ran; ignored")
            return
        }
        phase = .running
        activeWorkers = lanes.count
        await withDiscardingTaskGroup { group in
            for i in lanes.indices {
                let abort = Wakeup()
                lanes[i].abort = abort
                group.addTask(executorPreference: laneExecutor) { await self.runLane(i, abort: abort) }
            }
        }
        // Cancelled after `finish()` settled everything, the engine ended as asked; cancelled
        // before, it stops. Either way no lane runs now, so it takes no more events.
        if Task.isCancelled, !(closing && unsettled.isEmpty) { stop(.cancelled) }
        closing = true
        phase = .ended
        settleEverything()
        drainWaiters.resumeAll()
    }

    /// No new events: ``submit(_:)`` returns false from now on, and the lanes send what they hold.
    func close() {
        guard !closing else { return }
        closing = true
        submitWaiters.resumeAll()
        for i in lanes.indices { wake(i) }
    }

    /// Sends everything queued and returns once every submitted event has exactly one outcome.
    /// It waits for ``run()`` to run the lanes (at once when nothing is waiting to be sent).
    /// Cancelling the calling task stops the engine as ``cancel(grace:)`` with no grace does.
    public func finish() async -> DeliveryStats {
        close()
        await waitForDrain()
        if Task.isCancelled, !lanesDone {
            stop(.cancelled)
            graceExpired()
        }
        settleEverything()
        return stats
    }

    /// Stops: no new sends; in-flight requests get `grace` to settle (less when the calling task
    /// is cancelled); every other event is reported .notDelivered(.cancelled).
    public func cancel(grace: Duration) async -> DeliveryStats {
        closing = true
        stop(.cancelled)
        if !lanesDone {
            let clock = self.clock
            let deadline = clock.now + grace
            await withDiscardingTaskGroup { timer in
                timer.addTask {
                    do { try await clock.sleep(until: deadline) } catch { return }
                    await self.graceExpired()
                }
                await waitForDrain()
                timer.cancelAll()
            }
            if Task.isCancelled { graceExpired() }  // the caller stopped waiting: no more grace
        }
        settleEverything()
        return stats
    }

    /// Whether no lane can still report an outcome: ``run()`` returned, its lanes ended or were
    /// abandoned, or it never ran and nothing waits to be sent.
    var lanesDone: Bool {
        switch phase {
        case .idle: unsettled.isEmpty || stopCauseStorage != nil
        case .running: activeWorkers == 0 || abandoned
        case .ended: true
        }
    }

    /// Suspends until ``lanesDone`` (or the calling task is cancelled).
    func waitForDrain() async {
        await park(unless: { lanesDone }) { drainWaiters.append($0) }
    }
}
