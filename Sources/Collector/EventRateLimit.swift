import Synchronization

/// The collector's own rate limit (`mr-collector --max-events-per-second R`), a destination's
/// quota to test senders against: a token bucket of accepted events, refilled at `rate` a
/// second up to one second's worth. A request whose events the bucket cannot cover whole is
/// answered 429 with `Retry-After: 1`, and none of its events is accepted.
package final class EventRateLimit: Sendable {
    /// Events a second.
    package let rate: Double
    private let state: Mutex<(tokens: Double, last: ContinuousClock.Instant?)>

    /// A limit of `rate` events a second, full at first.
    package init(rate: Double) {
        self.rate = rate
        state = Mutex((rate, nil))
    }

    /// Whether `count` events may be accepted at `now` (and if so, they are taken).
    package func admit(_ count: Int, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { s in
            if let last = s.last {
                let elapsed = now - last
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                s.tokens = min(rate, s.tokens + max(0, seconds) * rate)
            }
            s.last = now
            guard s.tokens >= Double(count) else { return false }
            s.tokens -= Double(count)
            return true
        }
    }
}
