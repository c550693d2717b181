import MetaRouterDelivery
import Synchronization

/// Collects the outcomes an engine reports: pass ``callback`` as its `onOutcomes`. Tests wait
/// for outcomes with ``waitForOutcomes(_:)``, woken as they arrive.
public final class OutcomeSink: Sendable {
    private struct State {
        var outcomes: [EventOutcome] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// An empty sink.
    public init() {}

    /// Every outcome so far, in report order.
    public var all: [EventOutcome] { state.withLock { $0.outcomes } }

    /// The engine's `onOutcomes`.
    public var callback: @Sendable ([EventOutcome]) -> Void { { batch in self.append(batch) } }

    /// The result of each event by messageId (the first, if one had two).
    public func results() -> [String: EventOutcome.Result] {
        Dictionary(all.map { ($0.messageId, $0.result) }, uniquingKeysWith: { a, _ in a })
    }

    /// Returns once at least `count` outcomes have arrived.
    public func waitForOutcomes(_ count: Int) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.outcomes.count >= count { return true }
                s.waiters.append((count, c))
                return false
            }
            if now { c.resume() }
        }
    }

    private func append(_ batch: [EventOutcome]) {
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.outcomes.append(contentsOf: batch)
            let n = s.outcomes.count
            let ready = s.waiters.filter { $0.count <= n }.map(\.continuation)
            s.waiters.removeAll { $0.count <= n }
            return ready
        }
        for c in ready { c.resume() }
    }
}
