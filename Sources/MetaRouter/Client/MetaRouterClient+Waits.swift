/// Waits that end when the client reaches a state, for tests that must act at that moment (a
/// test that polled the state instead would spin, and race the client).
extension MetaRouterClient {
    /// Returns once the pump waits to be woken: it went through the queue, or it is held back.
    package func waitForPumpToPark() async { await waitUntil { $0.pumpIsParked } }

    /// Returns once ``run()`` has started (or the client has already run).
    package func waitUntilStarted() async { await waitUntil { $0.phase != .ready } }

    /// Returns once a ``drain()`` waits for ``run()`` to start.
    package func waitForDrainToWaitForRun() async { await waitUntil { !$0.startWaiters.isEmpty } }

    /// Returns once `condition` holds, checking it each time the client's state moves (a phase
    /// change, the pump parking, a drain waiting); returns early when the task is cancelled.
    private func waitUntil(_ condition: (isolated MetaRouterClient) -> Bool) async {
        while !condition(self), !Task.isCancelled {
            let moved = Wakeup()
            stateWaiters.append(moved)
            await moved.wait()
        }
    }

    /// The client's state moved: every ``waitUntil(_:)`` checks its condition again.
    func stateMoved() {
        stateWaiters.resumeAll()
    }
}
