import Synchronization

/// The client's background tasks (event pump and flush timer), created in the nonisolated
/// initializer and cancelled at shutdown.
final class ClientTasks: Sendable {
    private let state = Mutex<(pump: Task<Void, Never>?, timer: Task<Void, Never>?)>((nil, nil))

    /// Records the started tasks.
    func start(pump: Task<Void, Never>, timer: Task<Void, Never>) {
        state.withLock { $0 = (pump, timer) }
    }

    /// Stops the timer.
    func cancelTimer() {
        state.withLock { $0.timer }?.cancel()
    }

    /// Waits for the pump to end.
    func pumpEnded() async {
        await state.withLock { $0.pump }?.value
    }
}
