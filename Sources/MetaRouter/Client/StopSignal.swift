import Synchronization

/// A one-way flag that ends ``MetaRouterClient/run()``: set by ``MetaRouterClient/shutdown()``,
/// by a graceful shutdown of the service group, or by cancellation of the running task. It is
/// set from any context (a cancellation handler is synchronous), so it is a `Mutex`, not actor
/// state.
final class StopSignal: Sendable {
    private struct State {
        var requested = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Whether a stop was requested.
    var isRequested: Bool { state.withLock { $0.requested } }

    /// Requests the stop and wakes every waiter; later calls do nothing.
    func request() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            guard !s.requested else { return [] }
            s.requested = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }

    /// Returns once a stop is requested (at once if it was).
    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.requested { return true }
                s.waiters.append(c)
                return false
            }
            if now { c.resume() }
        }
    }
}
