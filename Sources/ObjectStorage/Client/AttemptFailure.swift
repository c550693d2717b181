import Foundation
import NIOCore

/// One attempt failed: how the retry policy sees it, plus what the final message needs.
package struct AttemptFailure: Error, Sendable {
    /// The failure's class for the retry policy.
    package var failure: S3Failure
    /// The HTTP status, when the store answered.
    var status: Int?
    /// The store's error document, when it sent one.
    var body: S3ErrorBody
    /// A short description of a transport failure ("connection reset by peer").
    var detail: String?

    /// An error answer.
    init(status: Int, body: S3ErrorBody) {
        self.failure = S3Failure.classify(status: status, code: body.code)
        self.status = status
        self.body = body
    }

    /// A failure without an answer, or an answer that makes no sense.
    package init(_ failure: S3Failure, detail: String) {
        self.failure = failure
        self.body = S3ErrorBody()
        self.detail = detail
    }

    /// A transport error from the HTTP client: no answer within the request's timeout is an idle
    /// timeout, anything else a reset (the connection broke, closed early, could not be made, or
    /// carried no HTTP), its detail saying which. Returns nil for cancellation, which is not a
    /// failure to retry.
    static func transport(_ error: any Error) -> AttemptFailure? {
        if error is CancellationError { return nil }
        if let error = error as? ObjectHTTPError {
            switch error.kind {
            case .timedOut: return AttemptFailure(.idleTimeout, detail: error.detail)
            default: return AttemptFailure(.connectionReset, detail: error.detail)
            }
        }
        if let error = error as? IOError { return AttemptFailure(.connectionReset, detail: error.description) }
        return AttemptFailure(.connectionReset, detail: String(describing: error))
    }

    /// How it reads in a message: `403 AccessDenied: Access Denied`, `connection reset (…)`.
    var summary: String {
        if let status {
            var text = "\(status)"
            if let code = body.code { text += " \(code)" }
            if let message = body.message, !message.isEmpty { text += ": \(message)" }
            return text
        }
        switch failure {
        case .idleTimeout: return "no bytes for the idle timeout" + (detail.map { " (\($0))" } ?? "")
        default: return "connection failed" + (detail.map { ": \($0)" } ?? "")
        }
    }
}
