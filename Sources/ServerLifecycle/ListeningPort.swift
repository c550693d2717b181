import Synchronization

/// The port a server bound, for callers that wait for it while the server's `run()` starts:
/// set once when listening, or failed when `run()` ends before that.
package final class ListeningPort: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Int, any Error>])
        case bound(Int)
        case failed(any Error)
    }

    /// Why no port came.
    package struct NotListening: Error, CustomStringConvertible {
        /// A readable message.
        package var description: String { "the server stopped before it was listening" }
    }

    private let state = Mutex(State.waiting([]))

    /// Creates an empty slot.
    package init() {}

    /// Records the bound port and wakes the waiters.
    package func bound(_ port: Int) {
        let waiters = state.withLock { s -> [CheckedContinuation<Int, any Error>] in
            guard case .waiting(let w) = s else { return [] }
            s = .bound(port)
            return w
        }
        for w in waiters { w.resume(returning: port) }
    }

    /// Records that the server will not listen (a failed bind, or it ended); wakes the waiters.
    package func fail(_ error: any Error = NotListening()) {
        let waiters = state.withLock { s -> [CheckedContinuation<Int, any Error>] in
            guard case .waiting(let w) = s else { return [] }
            s = .failed(error)
            return w
        }
        for w in waiters { w.resume(throwing: error) }
    }

    /// The port, once bound; 0 before.
    package var current: Int {
        state.withLock { s in
            if case .bound(let port) = s { return port }
            return 0
        }
    }

    /// Waits until the server is listening and returns its port.
    /// - Throws: what ``fail(_:)`` recorded.
    package func wait() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Int, any Error>? = state.withLock { s in
                switch s {
                case .waiting(var w):
                    w.append(continuation)
                    s = .waiting(w)
                    return nil
                case .bound(let port): return .success(port)
                case .failed(let error): return .failure(error)
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
