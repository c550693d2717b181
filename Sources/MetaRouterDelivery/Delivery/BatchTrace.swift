/// What happened to one batch that was not delivered on its first attempt, for a caller's
/// journal. The engine makes one only for such batches: a clean batch costs nothing.
package struct BatchTrace: Sendable {
    /// The circuit breaker's state after an attempt.
    package enum BreakerState: String, Sendable {
        case closed
        case open
        case halfOpen = "half_open"
    }

    /// One HTTP attempt and the wait that followed it.
    package struct Attempt: Sendable {
        /// When it was sent, in milliseconds since 1970 (the caller's wall clock).
        package var atMillis: Int64
        /// The response status, when there was a response.
        package var status: Int?
        /// The transport error, when there was none.
        package var error: String?
        /// The `Retry-After` the response asked for.
        package var retryAfter: Duration?
        /// How long the engine waited before the next attempt (nil after the last one).
        package var wait: Duration?
        /// The breaker's state after this attempt.
        package var breaker: BreakerState

        package init(
            atMillis: Int64, status: Int? = nil, error: String? = nil, retryAfter: Duration? = nil,
            wait: Duration? = nil, breaker: BreakerState
        ) {
            self.atMillis = atMillis
            self.status = status
            self.error = error
            self.retryAfter = retryAfter
            self.wait = wait
            self.breaker = breaker
        }
    }

    /// How the batch ended.
    package enum Outcome: Sendable, Equatable {
        /// The endpoint took it.
        case delivered
        /// It was split (413 halving or 400 bisection) into the batches with these ids.
        case split(children: [Int])
        /// Its events were given up with this reason.
        case gaveUp(reason: String)
        /// The engine stopped before it ended.
        case pending
    }

    /// Unique within the engine's run.
    package var id: Int
    /// The batch it was split from.
    package var parent: Int?
    /// The lane that sent it.
    package var lane: Int
    /// The tags of its events, in order.
    package var tags: [UInt64]
    /// Bytes of its body.
    package var bodyBytes: Int
    /// Every attempt, in order.
    package var attempts: [Attempt]
    /// How it ended.
    package var outcome: Outcome

    package init(
        id: Int, parent: Int?, lane: Int, tags: [UInt64], bodyBytes: Int, attempts: [Attempt], outcome: Outcome
    ) {
        self.id = id
        self.parent = parent
        self.lane = lane
        self.tags = tags
        self.bodyBytes = bodyBytes
        self.attempts = attempts
        self.outcome = outcome
    }
}
