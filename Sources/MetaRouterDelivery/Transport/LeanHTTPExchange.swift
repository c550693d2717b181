import NIOConcurrencyHelpers
import NIOCore

/// One request handed to a ``LeanHTTPConnectionHandler``: the head, the body as one buffer, when
/// to give up, and where the answer goes.
struct LeanHTTPExchange: Sendable {
    let head: LeanRequestHead
    let body: ByteBuffer
    let deadline: NIODeadline
    let promise: EventLoopPromise<LeanHTTPAnswer>
}

/// What one exchange ended with: the response (status and headers, or a network error) and
/// whether the connection may carry the next request.
struct LeanHTTPAnswer: Sendable {
    let response: DeliveryResponse
    let reusable: Bool
}

/// What closed a connection before its first request reached the pipeline: a TLS refusal, which
/// the write that then fails answers instead of a network error.
final class LeanConnectionFault: Sendable {
    private let refusal = NIOLockedValueBox<String?>(nil)

    /// `.tlsFailure` with the recorded refusal, if any.
    var response: DeliveryResponse? { refusal.withLockedValue { $0 }.map { .tlsFailure($0) } }

    func record(_ reason: String) { refusal.withLockedValue { $0 = reason } }
}

/// Sent down the pipeline to abandon the exchange in flight (the sending task was cancelled).
struct LeanHTTPCancel: Sendable {}
