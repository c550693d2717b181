/// Event and request token buckets, slowed down after a 429 until the next success.
///
/// Each 429 halves the effective rates (down to 1/64). When the request rate is unlimited, a
/// throttled engine starts from `unlimitedFallback` requests per second (the engine uses its
/// concurrency), so a 429 always slows the sender down. A success restores the configured rates.
package struct RateLimiter: Sendable {
    /// Limits events per second.
    package private(set) var events: TokenBucket
    /// Limits requests per second.
    package private(set) var requests: TokenBucket
    /// How many 429s since the last success (0 = not throttled).
    package private(set) var throttleLevel = 0
    private let eventsPerSecond: Double
    private let requestsPerSecond: Double
    private let unlimitedFallback: Double

    /// Creates full buckets (0 = unlimited).
    package init(eventsPerSecond: Double, requestsPerSecond: Double, unlimitedFallback: Double, now: Duration = .zero) {
        self.eventsPerSecond = eventsPerSecond
        self.requestsPerSecond = requestsPerSecond
        self.unlimitedFallback = max(unlimitedFallback, 0.01)
        events = TokenBucket(rate: eventsPerSecond, capacity: RateLimiter.burst(eventsPerSecond), now: now)
        requests = TokenBucket(rate: requestsPerSecond, capacity: RateLimiter.burst(requestsPerSecond), now: now)
    }

    /// The burst allowed at the start: a tenth of a second of tokens (at least one), so even a
    /// short run stays within its configured rate. Larger reservations still pass (into debt).
    static func burst(_ rate: Double) -> Double { max(rate / 10, 1) }

    /// Reserves one request carrying `eventCount` events; returns the wait before sending.
    package mutating func reserve(eventCount: Int, now: Duration) -> Duration {
        let a = events.reserve(Double(eventCount), now: now)
        let b = requests.reserve(1, now: now)
        return max(a, b)
    }

    /// A 429 arrived: halve the rates.
    package mutating func throttle(now: Duration) {
        throttleLevel = min(throttleLevel + 1, 6)
        apply(now: now)
    }

    /// A success arrived: restore the configured rates.
    package mutating func recover(now: Duration) {
        guard throttleLevel > 0 else { return }
        throttleLevel = 0
        apply(now: now)
    }

    private mutating func apply(now: Duration) {
        let divisor = Double(1 << throttleLevel)
        // The burst stays a tenth of a second of the current rate, as at the start.
        func set(_ bucket: inout TokenBucket, _ rate: Double) { bucket.setRate(rate, capacity: Self.burst(rate), now: now) }
        if throttleLevel == 0 {
            set(&events, eventsPerSecond)
            set(&requests, requestsPerSecond)
        } else {
            if eventsPerSecond > 0 { set(&events, eventsPerSecond / divisor) }
            let base = requestsPerSecond > 0 ? requestsPerSecond : unlimitedFallback
            set(&requests, base / divisor)
        }
    }
}
