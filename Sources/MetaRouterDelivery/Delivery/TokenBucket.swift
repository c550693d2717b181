/// A token bucket on the engine clock. Reservations may run into debt: a request for more tokens
/// than are available is granted at the time the balance would have refilled, so long-run
/// throughput is exactly `rate` even when one request needs more than the bucket holds.
package struct TokenBucket: Sendable, Equatable {
    /// Tokens per second; 0 means unlimited.
    package private(set) var rate: Double
    /// The most tokens the bucket holds (burst).
    package private(set) var capacity: Double
    /// The balance at ``updated`` (negative while in debt).
    package private(set) var tokens: Double
    /// When ``tokens`` was last brought up to date.
    package private(set) var updated: Duration

    /// Creates a full bucket; `capacity` defaults to one second of tokens (at least 1).
    package init(rate: Double, capacity: Double? = nil, now: Duration = .zero) {
        self.rate = rate
        self.capacity = capacity ?? max(rate, 1)
        self.tokens = self.capacity
        self.updated = now
    }

    /// Whether the bucket limits anything.
    package var isUnlimited: Bool { rate <= 0 }

    /// Takes `count` tokens at `now`; returns how long the caller must wait before going ahead.
    package mutating func reserve(_ count: Double, now: Duration) -> Duration {
        guard !isUnlimited else { return .zero }
        refill(now: now)
        tokens -= count
        return tokens >= 0 ? .zero : .fromSeconds(-tokens / rate)
    }

    /// Changes the rate (keeping the balance), for example to slow down after a 429. The burst
    /// becomes `capacity`, or one second of tokens (at least 1) when it is nil.
    package mutating func setRate(_ newRate: Double, capacity newCapacity: Double? = nil, now: Duration) {
        refill(now: now)
        rate = newRate
        if newRate > 0 { capacity = newCapacity ?? max(newRate, 1) }
        tokens = min(tokens, capacity)
    }

    private mutating func refill(now: Duration) {
        if now > updated {
            tokens = min(capacity, tokens + (now - updated).seconds * rate)
            updated = now
        }
    }
}
