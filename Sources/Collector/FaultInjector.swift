import Synchronization

/// What fault injection decided for one request.
package enum FaultDecision: Equatable {
    /// Handle the request normally.
    case none
    /// Answer with this status (injected failure, down window or fail-first).
    case fail(Int)
    /// Answer 429 with `Retry-After: seconds`.
    case throttle(Int)
    /// Reset the connection without answering.
    case reset
}

/// Decides, per request and in arrival order, which fault (if any) to inject.
///
/// Every request that reaches the random stage draws exactly three numbers (reset, failure,
/// throttle), so the same seed and the same request order give the same decisions whatever rates are set.
package final class FaultInjector: Sendable {
    private let faults: FaultConfiguration
    private let state: Mutex<(rng: SplitMix64, seen: Int)>

    /// An injector for `faults`, before its first request.
    package init(_ faults: FaultConfiguration) {
        self.faults = faults
        self.state = Mutex((SplitMix64(seed: faults.seed), 0))
    }

    /// The decision for the next batch request (in arrival order), `elapsed` after server start.
    package func decide(elapsed: Duration) -> FaultDecision {
        let index = state.withLock { s in
            defer { s.seen += 1 }
            return s.seen
        }
        if let down = faults.down, down.contains(elapsed) { return .fail(503) }
        if index < faults.failFirst { return .fail(faults.failureStatus) }
        let (r, f, t) = state.withLock { s in (s.rng.nextUnit(), s.rng.nextUnit(), s.rng.nextUnit()) }
        if r < faults.resetRate { return .reset }
        if f < faults.failureRate { return .fail(faults.failureStatus) }
        if t < faults.throttleRate { return .throttle(faults.retryAfter) }
        return .none
    }
}
