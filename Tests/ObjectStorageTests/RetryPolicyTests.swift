import ObjectStorage
import Testing

/// The retry policy as a pure state machine: failures in, decisions out, with the randomness given.
struct RetryPolicyTests {
    static let policy = RetryPolicy(
        maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .milliseconds(300),
        throttleFloor: .milliseconds(250))

    @Test(
        arguments: [
            (500, nil, S3Failure.internalError), (503, "SlowDown", .slowDown), (502, nil, .serverError(status: 502)),
            (504, nil, .serverError(status: 504)), (429, nil, .throttled(status: 429)), (400, "RequestTimeout", .throttled(status: 400)),
            (403, "AccessDenied", .forbidden(code: "AccessDenied")), (401, nil, .forbidden(code: nil)),
            (400, "ExpiredToken", .forbidden(code: "ExpiredToken")), (404, "NoSuchKey", .notFound(code: "NoSuchKey")),
            (412, "PreconditionFailed", .preconditionFailed), (400, "InvalidArgument", .clientError(status: 400, code: "InvalidArgument")),
            (416, "InvalidRange", .clientError(status: 416, code: "InvalidRange")),
            (301, "PermanentRedirect", .clientError(status: 301, code: "PermanentRedirect")),
        ] as [(Int, String?, S3Failure)])
    func classifiesAnswers(_ status: Int, _ code: String?, _ expected: S3Failure) {
        #expect(S3Failure.classify(status: status, code: code) == expected)
    }

    /// Only what a retry can fix is retried; the rest fails at once with its kind.
    @Test(arguments: [
        (S3Failure.forbidden(code: "AccessDenied"), S3Error.Kind.accessDenied),
        (.notFound(code: "NoSuchBucket"), .noSuchBucket), (.notFound(code: "NoSuchKey"), .noSuchKey),
        (.notFound(code: nil), .noSuchKey), (.preconditionFailed, .objectChanged),
        (.clientError(status: 400, code: "InvalidArgument"), .rejected),
    ])
    func failsAtOnce(_ failure: S3Failure, _ kind: S3Error.Kind) {
        var state = RetryState(policy: Self.policy)
        #expect(state.next(after: failure, random: 0.5) == .fail(kind))
        #expect(state.failures == 0)
    }

    /// Back-off doubles from the base, is capped, and jitter spreads it over [cap/2, cap).
    @Test(arguments: [S3Failure.internalError, .serverError(status: 502), .connectionReset, .idleTimeout])
    func backsOffExponentiallyThenGivesUp(_ failure: S3Failure) {
        var state = RetryState(policy: Self.policy)
        #expect(state.next(after: failure, random: 0) == .retry(after: .milliseconds(50)))
        #expect(state.next(after: failure, random: 0.5) == .retry(after: .milliseconds(150)))
        #expect(state.next(after: failure, random: 1) == .retry(after: .milliseconds(300)))
        #expect(state.next(after: failure, random: 0) == .fail(.retriesExhausted))
    }

    @Test func capsTheDelay() {
        var state = RetryState(policy: RetryPolicy(maxAttempts: 40, baseDelay: .seconds(1), maxDelay: .seconds(20)))
        var last = Duration.zero
        for _ in 0..<38 {
            guard case .retry(let delay) = state.next(after: .connectionReset, random: 0.999_999) else {
                Issue.record("gave up too early")
                return
            }
            last = delay
        }
        #expect(last <= .seconds(20) && last > .seconds(19))
    }

    @Test(arguments: [S3Failure.slowDown, .throttled(status: 429)])
    func throttlingWaitsAtLeastTheFloor(_ failure: S3Failure) {
        var state = RetryState(policy: Self.policy)
        #expect(state.next(after: failure, random: 0) == .retry(after: .milliseconds(250)))
        #expect(state.next(after: failure, random: 0.9) == .retry(after: .milliseconds(250)))
    }

    /// Progress (bytes delivered) starts the count again, so a long read survives occasional resets.
    @Test func progressResetsTheCount() {
        var state = RetryState(policy: Self.policy)
        for _ in 0..<10 {
            #expect(state.next(after: .connectionReset, random: 0) == .retry(after: .milliseconds(50)))
            #expect(state.next(after: .idleTimeout, random: 0) == .retry(after: .milliseconds(100)))
            state.recordProgress()
        }
        #expect(state.failures == 0)
    }

    @Test func oneAttemptMeansNoRetry() {
        var state = RetryState(policy: RetryPolicy(maxAttempts: 1))
        #expect(state.next(after: .slowDown, random: 0.3) == .fail(.retriesExhausted))
    }
}
