import SystemIO
/// The one way an owner that handles stopping itself runs an engine: mr-replay's run, the
/// dead-letter retry and ``MetaRouterClient`` (``DeliveryEngine/run()`` is the engine as a
/// service of its own).
extension DeliveryEngine {
    /// How ``run(stop:onStop:isolation:_:)`` ends the engine once its body returns.
    package enum Ending: Sendable {
        /// Send everything queued, then end (``DeliveryEngine/finish()``).
        case finish
        /// End now (``DeliveryEngine/cancel(grace:)`` with the stop policy's grace): requests in
        /// flight settle, everything else is reported not delivered.
        case cancel
    }

    /// What a raised stop does while the engine runs.
    package enum StopPolicy: Sendable {
        /// Cancel at once: requests in flight get `grace` to settle; nothing else is sent.
        case cancel(grace: Duration)
        /// Keep sending until the engine time `deadline` returns (asked when the stop comes),
        /// then cancel with `grace`.
        case finishBy(deadline: @Sendable () async -> Duration, grace: Duration)

        var grace: Duration {
            switch self {
            case .cancel(let grace), .finishBy(_, let grace): grace
            }
        }
    }

    /// Runs the engine's lanes while `body` feeds the engine, then ends the engine as `body`
    /// returned (``Ending``), and returns once every submitted event has its outcome and no lane
    /// runs: `body`'s value and the engine's figures.
    ///
    /// - A stop raised on `stop` at any time ends the engine as `onStop` says.
    /// - Cancelling the calling task does not cancel the lanes directly: `body` sees the
    ///   cancellation, and the engine ends as `onStop` says once the owner raises `stop` (as every
    ///   owner's cancellation handler does) or when `body` returns. So requests in flight always
    ///   get the grace, and the lanes run in a task of their own, awaited before this returns.
    /// - `body` runs in the caller's isolation.
    package func run<R>(
        stop: StopSignal, onStop: StopPolicy, isolation: isolated (any Actor)? = #isolation,
        _ body: () async -> (R, Ending)
    ) async -> (value: R, stats: DeliveryStats) {
        // Owned by this call, which awaits it below before returning. Not a child task: a
        // cancellation of the caller must reach the lanes only through `onStop` (the grace).
        let lanes = Task { await self.runLanes() }
        let result = await withTaskGroup(of: Void.self) { watcher in
            watcher.addTask { await self.endOnStop(stop, onStop) }
            let (value, ending) = await body()
            let stats = ending == .finish ? await finish() : await cancel(grace: onStop.grace)
            watcher.cancelAll()
            return (value: value, stats: stats)
        }
        await lanes.value
        return result
    }

    /// Waits for `stop` and ends the engine as `policy` says; returns at once when cancelled.
    private func endOnStop(_ stop: StopSignal, _ policy: StopPolicy) async {
        guard await stop.requested() else { return }
        switch policy {
        case .cancel(let grace):
            _ = await cancel(grace: grace)
        case .finishBy(let deadline, let grace):
            let until = await deadline()
            do { try await clock.sleep(until: until) } catch { return }
            _ = await cancel(grace: grace)
        }
    }
}
