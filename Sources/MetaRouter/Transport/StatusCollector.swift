import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Collects what the engine needs from a response (status and headers) and drains the body
/// without keeping it. AsyncHTTPClient completes the task's future once, on its event loop, so
/// the answer reaches the awaiting lane with one hop and no per-part async iteration.
final class StatusCollector: HTTPClientResponseDelegate {
    typealias Response = DeliveryResponse

    /// A body beyond this many bytes is a broken or hostile endpoint: the request fails.
    static let maximumBodyBytes = 1 << 20

    private struct State {
        var status = 0
        var headers: [(String, String)] = []
        var bodyBytes = 0
    }

    // The delegate is called on one event loop, one call at a time; the lock only makes that
    // provable to the compiler (it is never contended).
    private let state = NIOLockedValueBox(State())

    func didReceiveHead(task: HTTPClient.Task<DeliveryResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        state.withLockedValue {
            $0.status = Int(head.status.code)
            $0.headers = head.headers.map { ($0.name, $0.value) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<DeliveryResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let total = state.withLockedValue {
            $0.bodyBytes += buffer.readableBytes
            return $0.bodyBytes
        }
        if total > Self.maximumBodyBytes {
            return task.eventLoop.makeFailedFuture(ResponseBodyTooLarge())
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<DeliveryResponse>) throws -> DeliveryResponse {
        state.withLockedValue { .status($0.status, headers: $0.headers) }
    }
}

/// The response body was larger than ``StatusCollector/maximumBodyBytes``.
struct ResponseBodyTooLarge: Error, CustomStringConvertible {
    var description: String { "the response body is larger than \(StatusCollector.maximumBodyBytes) bytes" }
}
