/// The circuit breaker around the endpoint: closed → open (after `failureThreshold` consecutive
/// retryable failures) → half-open (after the cooldown, a limited number of probes) → closed on a
/// probe's success, or open again with the cooldown doubled (up to `maxCooldown`) on its failure.
package struct CircuitBreaker: Sendable {
    /// The breaker's state.
    package enum State: Sendable, Equatable {
        /// Requests flow; `failures` consecutive retryable failures so far.
        case closed(failures: Int)
        /// No requests until `until` (monotonic engine time).
        case open(until: Duration)
        /// Up to `halfOpenMaxConcurrent` probes; `probes` are in flight.
        case halfOpen(probes: Int)
    }

    /// What a caller that wants to send should do.
    package enum Permission: Sendable, Equatable {
        /// Send now; `probe` is true for a half-open probe (report its result).
        case proceed(probe: Bool)
        /// The breaker is open: ask again at this time.
        case waitUntil(Duration)
        /// The half-open probes are taken: ask again when one of them settles.
        case waitForProbe
    }

    /// The settings.
    package let configuration: BreakerConfiguration
    /// The current state.
    package private(set) var state: State = .closed(failures: 0)
    /// The cooldown (before jitter) used the next time the breaker opens from half-open.
    package private(set) var nextCooldown: Duration
    /// The jittered cooldown chosen when the breaker last opened.
    package private(set) var lastCooldown: Duration = .zero

    /// Creates a closed breaker.
    package init(configuration: BreakerConfiguration) {
        self.configuration = configuration
        self.nextCooldown = configuration.cooldown
    }

    /// Asks to send at `now`; moves open → half-open when the cooldown is over.
    package mutating func acquire(now: Duration) -> Permission {
        switch state {
        case .closed:
            return .proceed(probe: false)
        case .open(let until):
            guard now >= until else { return .waitUntil(until) }
            state = .halfOpen(probes: 1)
            return .proceed(probe: true)
        case .halfOpen(let probes):
            guard probes < configuration.halfOpenMaxConcurrent else { return .waitForProbe }
            state = .halfOpen(probes: probes + 1)
            return .proceed(probe: true)
        }
    }

    /// The end of the current open period, if open.
    package var openUntil: Duration? {
        if case .open(let until) = state { return until }
        return nil
    }

    /// Records a success (any non-retryable answer counts: the endpoint is up). Closes the breaker.
    package mutating func recordSuccess() {
        state = .closed(failures: 0)
        nextCooldown = configuration.cooldown
    }

    /// Records a retryable failure at `now`; `random` is in 0..<1 for jitter.
    /// Returns true when this failure opened the breaker.
    package mutating func recordFailure(now: Duration, probe: Bool, random: Double) -> Bool {
        switch state {
        case .closed(let failures):
            let f = failures + 1
            guard f >= configuration.failureThreshold else {
                state = .closed(failures: f)
                return false
            }
            open(now: now, base: configuration.cooldown, random: random)
            nextCooldown = min(configuration.cooldown * 2, configuration.maxCooldown)
            return true
        case .halfOpen:
            guard probe else { return false }
            open(now: now, base: nextCooldown, random: random)
            nextCooldown = min(nextCooldown * 2, configuration.maxCooldown)
            return true
        case .open:
            return false  // a request sent before the breaker opened; the open period already counts it
        }
    }

    /// Releases a probe slot without a verdict (for example the engine stopped before it was sent).
    package mutating func releaseProbe() {
        if case .halfOpen(let probes) = state { state = .halfOpen(probes: max(probes - 1, 0)) }
    }

    private mutating func open(now: Duration, base: Duration, random: Double) {
        let factor = 1 + configuration.jitter * (2 * random - 1)
        let cooldown = Duration.fromSeconds(base.seconds * factor)
        lastCooldown = cooldown
        state = .open(until: now + cooldown)
    }
}
