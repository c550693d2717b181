import AsyncHTTPClient
import MetaRouterDelivery
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Collects what the engine needs from a response (status and headers) and drains the body
/// without keeping it, so an answer of any size costs no memory (the request deadline bounds
/// how long it may take). AsyncHTTPClient completes the task's future once, on its event loop,
/// so the answer reaches the awaiting lane with one hop and no per-part async iteration.
final class StatusCollector: HTTPClientResponseDelegate {
    typealias Response = DeliveryResponse

    private struct Head {
        var status = 0
        var headers: [(String, String)] = []
    }

    // The delegate is called on one event loop, one call at a time; the lock only makes that
    // provable to the compiler (it is never contended).
    private let head = NIOLockedValueBox(Head())

    func didReceiveHead(task: HTTPClient.Task<DeliveryResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.head.withLockedValue {
            $0.status = Int(head.status.code)
            $0.headers = head.headers.map { ($0.name, $0.value) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<DeliveryResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        task.eventLoop.makeSucceededVoidFuture()  // drained, not kept
    }

    func didFinishRequest(task: HTTPClient.Task<DeliveryResponse>) throws -> DeliveryResponse {
        head.withLockedValue { .status($0.status, headers: $0.headers) }
    }
}
