import Synchronization

/// A request to stop, raised once and counted: the one stop signal of the package.
///
/// - `MetaRouterClient.run()` (MetaRouter) ends on one: `MetaRouterClient.shutdown()`, a
///   graceful shutdown of its service group or the cancellation of its task raises it.
/// - A replay (`ReplayRunner.run(stop:)` in ReplayKit) stops early on one: the graceful shutdown of
///   `mr-replay`'s service group (SIGINT, SIGTERM), a caller, or the cancellation of the run's
///   task raises it. The run then stops reading, lets in-flight batches settle and writes its
///   checkpoint and report.
///
/// It is raised from any context (a cancellation handler is synchronous), so its state is behind
/// a `Mutex`, not an actor. Code waits for it in the way that suits it: async code awaits
/// ``requested()`` (cancellation-aware); a thread in a tight loop polls ``isRequested`` (an
/// atomic load, no lock); a thread blocked in a system call registers ``whenRequested(_:)`` to
/// be woken.
public final class StopSignal: Sendable {
    private struct State {
        var requests = 0
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter: UInt64 = 0
        var handlers: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())
    /// Mirrors `state.requests > 0`, for the reader thread's per-line check without a lock.
    private let raised = Atomic<Bool>(false)

    /// Creates a signal that has not been raised.
    public init() {}

    /// Raises the signal: wakes every waiter and, on the first request, runs the handlers.
    /// Returns how many stop requests there have been, including this one.
    @discardableResult
    public func request() -> Int {
        let (count, waiters, handlers) = state.withLock { s -> (Int, [CheckedContinuation<Bool, Never>], [@Sendable () -> Void]) in
            s.requests += 1
            let waiting = Array(s.waiters.values)
            s.waiters.removeAll()
            let handlers = s.handlers
            s.handlers.removeAll()
            return (s.requests, waiting, handlers)
        }
        raised.store(true, ordering: .releasing)
        for waiter in waiters { waiter.resume(returning: true) }
        for handler in handlers { handler() }
        return count
    }

    /// Whether a stop was requested.
    public var isRequested: Bool { raised.load(ordering: .acquiring) }

    /// Calls `handler` once when a stop is requested (at once if it already was): for code on
    /// a thread of its own that blocks, to wake it.
    package func whenRequested(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.requests > 0 { return true }
            s.handlers.append(handler)
            return false
        }
        if now { handler() }
    }

    /// Suspends until a stop is requested (returns true) or the calling task is cancelled
    /// (returns false, unless a stop was requested too).
    package func requested() async -> Bool {
        let id = state.withLock { s -> UInt64 in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let resumeNow = state.withLock { s -> Bool? in
                    if s.requests > 0 { return true }
                    if Task.isCancelled { return false }
                    s.waiters[id] = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: isRequested)
        }
    }
}
