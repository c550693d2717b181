import NIOConcurrencyHelpers
import NIOCore

/// Awaits `future`, except that a cancelled task stops waiting at once, throwing
/// `CancellationError`; a value that arrives after that is handed to `discard` (a connection made
/// too late is closed so).
func awaitCancellably<Value: Sendable>(
    _ future: EventLoopFuture<Value>, discard: @escaping @Sendable (Value) -> Void
) async throws -> Value {
    let wait = NIOLockedValueBox(CancellableWait<Value>.waiting(nil))
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
            let cancelled = wait.withLockedValue { wait -> Bool in
                if case .cancelled = wait { return true }
                wait = .waiting(continuation)
                return false
            }
            if cancelled { continuation.resume(throwing: CancellationError()) }
            future.whenComplete { result in
                if let continuation = wait.withLockedValue({ $0.end(.done) }) {
                    continuation.resume(with: result)
                } else if case .success(let value) = result {
                    discard(value)
                }
            }
        }
    } onCancel: {
        wait.withLockedValue { $0.end(.cancelled) }?.resume(throwing: CancellationError())
    }
}

/// Who ends a wait of ``awaitCancellably(_:discard:)`` first: the future or the cancellation.
private enum CancellableWait<Value: Sendable>: Sendable {
    /// Not ended; the continuation once the wait began.
    case waiting(CheckedContinuation<Value, any Error>?)
    /// The future completed first.
    case done
    /// The task was cancelled first.
    case cancelled

    /// Ends the wait as `end` if nothing ended it yet; returns the continuation to resume, if any.
    mutating func end(_ end: CancellableWait) -> CheckedContinuation<Value, any Error>? {
        guard case .waiting(let continuation) = self else { return nil }
        self = end
        return continuation
    }
}
