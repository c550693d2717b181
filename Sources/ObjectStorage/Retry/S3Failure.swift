/// What went wrong with one request, as the retry policy sees it.
package enum S3Failure: Sendable, Equatable {
    /// 500 (`InternalError`).
    case internalError
    /// 503 (`SlowDown`, or any 503): the store asks to slow down.
    case slowDown
    /// Another 5xx.
    case serverError(status: Int)
    /// A 4xx that asks to try again later: 408, 429, or 400 `RequestTimeout`.
    case throttled(status: Int)
    /// The connection was reset, closed early or could not be made.
    case connectionReset
    /// No bytes arrived for the idle timeout.
    case idleTimeout
    /// 401 or 403, or a refusal of the credentials themselves (`InvalidAccessKeyId`,
    /// `SignatureDoesNotMatch`, `ExpiredToken`, `InvalidToken`).
    case forbidden(code: String?)
    /// 404 (`NoSuchBucket`, `NoSuchKey`, or none for a HEAD, which has no body).
    case notFound(code: String?)
    /// 412: `If-Match` failed, the object is not the pinned version any more.
    case preconditionFailed
    /// Any other 4xx (or 3xx): a retry cannot fix it.
    case clientError(status: Int, code: String?)

    /// The failure an HTTP error answer means.
    package static func classify(status: Int, code: String?) -> S3Failure {
        switch (status, code) {
        case (500, _): return .internalError
        case (503, _): return .slowDown
        case (501...599, _): return .serverError(status: status)
        case (408, _), (429, _), (400, "RequestTimeout"): return .throttled(status: status)
        case (401, _), (403, _): return .forbidden(code: code)
        case (400, "ExpiredToken"), (400, "InvalidToken"), (400, "TokenRefreshRequired"): return .forbidden(code: code)
        case (404, _): return .notFound(code: code)
        case (412, _): return .preconditionFailed
        default: return .clientError(status: status, code: code)
        }
    }

    /// Whether a retry can fix it.
    package var isRetryable: Bool {
        switch self {
        case .internalError, .slowDown, .serverError, .throttled, .connectionReset, .idleTimeout: return true
        case .forbidden, .notFound, .preconditionFailed, .clientError: return false
        }
    }

    /// The kind of error it becomes when it is not retried: the CLI maps kinds to exit statuses.
    package var errorKind: S3Error.Kind {
        switch self {
        case .internalError, .slowDown, .serverError, .throttled, .connectionReset, .idleTimeout: return .retriesExhausted
        case .forbidden: return .accessDenied
        case .notFound(let code): return code == "NoSuchBucket" ? .noSuchBucket : .noSuchKey
        case .preconditionFailed: return .objectChanged
        case .clientError: return .rejected
        }
    }
}
