import Synchronization

/// What fault injection decided for one request.
enum FaultDecision: Equatable {
    /// Handle the request normally.
    case none
    /// Answer with this status (injected failure, down window or fail-first).
    case fail(Int)
    /// Answer 429 with `Retry-After: seconds`.
    case throttle(Int)
    /// Reset the connection without answering.
    case reset
}

/// SplitMix64: a tiny, fast, seedable generator, so a seed reproduces the same faults.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0..<1`.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }
}

/// Decides, per request and in arrival order, which fault (if any) to inject.
///
/// Every request that reaches the random stage draws exactly three numbers (reset, failure,
/// throttle), so the same seed and the same request order give the same decisions whatever rates are set.
final class FaultInjector: Sendable {
    private let faults: FaultConfiguration
    private let state: Mutex<(rng: SplitMix64, seen: Int)>

    init(_ faults: FaultConfiguration) {
        self.faults = faults
        self.state = Mutex((SplitMix64(seed: faults.seed), 0))
    }

    /// The decision for the next batch request (in arrival order), `elapsed` after server start.
    func decide(elapsed: Duration) -> FaultDecision {
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
