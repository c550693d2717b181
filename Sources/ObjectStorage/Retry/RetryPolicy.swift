/// How failures are retried: bounded attempts, exponential back-off with jitter, capped.
package struct RetryPolicy: Sendable, Equatable {
    /// Attempts in a row that may fail before giving up (the first attempt included). An attempt
    /// that made progress (delivered bytes) starts the count again.
    package var maxAttempts: Int
    /// The back-off before the second attempt; it doubles for each further attempt.
    package var baseDelay: Duration
    /// The longest back-off.
    package var maxDelay: Duration
    /// The shortest back-off after a 503 `SlowDown` or a 429.
    package var throttleFloor: Duration

    /// A policy; the defaults give up after 6 failed attempts and about 30 s of waiting.
    package init(
        maxAttempts: Int = 6, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(20),
        throttleFloor: Duration = .seconds(1)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.throttleFloor = throttleFloor
    }
}

/// What to do after a failure.
package enum RetryDecision: Sendable, Equatable {
    /// Try again after this back-off.
    case retry(after: Duration)
    /// Give up: the failure becomes an error of this kind.
    case fail(S3Error.Kind)
}

/// The retry policy as a pure state machine: it counts failed attempts in a row and answers each
/// failure with a ``RetryDecision``. No clock and no sleeping: the caller sleeps the returned
/// back-off and supplies the randomness, so tests drive it exactly.
package struct RetryState: Sendable {
    /// The policy applied.
    package let policy: RetryPolicy
    /// Failed attempts since the last progress.
    package private(set) var failures = 0

    /// A fresh state for `policy`.
    package init(policy: RetryPolicy) { self.policy = policy }

    /// Records a failed attempt and decides. `random` is a value in `0..<1`: the back-off is
    /// `cap * (1 + random) / 2` with `cap = min(maxDelay, baseDelay * 2^(failures-1))`, raised to
    /// ``RetryPolicy/throttleFloor`` after a throttling answer.
    package mutating func next(after failure: S3Failure, random: Double) -> RetryDecision {
        guard failure.isRetryable else { return .fail(failure.errorKind) }
        failures += 1
        guard failures < policy.maxAttempts else { return .fail(.retriesExhausted) }
        let exponent = min(failures - 1, 30)
        let cap = min(policy.maxDelay, policy.baseDelay * (1 << exponent))
        let jitter = (1 + min(max(random, 0), 1)) / 2
        var delay = Duration.microseconds(Int64((Double(cap.microseconds) * jitter).rounded()))
        switch failure {
        case .slowDown, .throttled: delay = max(delay, policy.throttleFloor)
        default: break
        }
        return .retry(after: delay)
    }

    /// The last attempt made progress (it delivered bytes): later failures count from zero again.
    package mutating func recordProgress() { failures = 0 }
}

extension Duration {
    /// Whole microseconds.
    var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
