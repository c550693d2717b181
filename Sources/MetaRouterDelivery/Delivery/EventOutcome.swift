/// Why the engine stopped before settling every event.
public enum StopCause: Sendable, Equatable {
    /// The endpoint answered 401, 403 or 404: the configuration is wrong, nothing more can be sent.
    case fatalStatus(Int)
    /// TLS with the endpoint failed in a way retrying cannot fix: its certificate is not
    /// trusted, or it refused the client's certificate; the string says what happened.
    case tlsFailure(String)
    /// A batch used up its retry budget (`maxAttempts` or `maxElapsed`); the string says which and why.
    case retriesExhausted(String)
    /// The caller cancelled the engine.
    case cancelled
}

/// The final result for one submitted event. Each submitted event gets exactly one.
public struct EventOutcome: Sendable, Equatable {
    /// What happened to the event.
    public enum Result: Sendable, Equatable {
        /// The endpoint accepted the event (2xx).
        case delivered
        /// Settled without delivery: the caller dead-letters it. `reason.rawValue` is the stable
        /// name (`too_large`, `rejected_400`, ...); `detail` says what happened, for a person.
        case gaveUp(reason: GiveUpReason, detail: String)
        /// Not settled: the engine stopped; the caller keeps the event for a later run.
        case notDelivered(StopCause)
    }

    /// The caller's tag from the ``EncodedEvent``.
    public let tag: UInt64
    /// The event's message id.
    public let messageId: String
    /// What happened.
    public let result: Result
    /// The event's bytes as submitted, for a ``Result/gaveUp(reason:detail:)`` outcome, so the
    /// caller can dead-letter the event without keeping its own copy while it is in flight.
    /// `nil` for the other results.
    public let givenUpBytes: [UInt8]?

    /// Creates an outcome.
    public init(tag: UInt64, messageId: String, result: Result, givenUpBytes: [UInt8]? = nil) {
        self.tag = tag
        self.messageId = messageId
        self.result = result
        self.givenUpBytes = givenUpBytes
    }
}
