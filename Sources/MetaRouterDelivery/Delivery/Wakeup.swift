import Synchronization

/// One suspended wait of the engine (a lane waiting for events, a submitter for room, a lane
/// for the breaker's probe, `finish` for the lanes): it ends when ``resume()`` is called or when
/// the waiting task is cancelled, whichever comes first, so a cancelled task never stays parked.
///
/// A ``resume()`` that comes before ``wait(isolation:)`` makes the wait return at once: the
/// waker may run while the waiter is between registering the wake-up and suspending (on an
/// event loop executor the call can suspend before its body runs). The state is behind a mutex
/// because the cancellation handler runs synchronously on whatever thread cancels the task.
package final class Wakeup: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Void, Never>)
        case resumed
    }

    private let state = Mutex(State.idle)

    package init() {}

    /// Suspends until ``resume()`` or the cancellation of the calling task; runs on `isolation`
    /// (the engine's), so resuming brings the waiter back without another hop.
    package func wait(isolation: isolated (any Actor)? = #isolation) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if case .resumed = s { return true }
                    s = .waiting(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            resume()
        }
    }

    /// Ends the wait (now, or as soon as it begins). Later calls do nothing.
    package func resume() {
        let continuation = state.withLock { s -> CheckedContinuation<Void, Never>? in
            defer { s = .resumed }
            if case .waiting(let c) = s { return c }
            return nil
        }
        continuation?.resume()
    }
}

extension [Wakeup] {
    /// Ends every wait in the list and empties it.
    package mutating func resumeAll() {
        let waiting = self
        removeAll()
        for wakeup in waiting { wakeup.resume() }
    }
}
