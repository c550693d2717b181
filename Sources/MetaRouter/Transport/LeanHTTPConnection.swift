import NIOCore
import NIOHTTP1

/// One request handed to a ``LeanHTTPConnectionHandler``: the head, the body as one buffer, when
/// to give up, and where the answer goes.
struct LeanHTTPExchange: Sendable {
    let head: HTTPRequestHead
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

/// Sent down the pipeline to abandon the exchange in flight (the sending task was cancelled).
struct LeanHTTPCancel: Sendable {}

/// The last handler of a lean connection's pipeline (after NIO's `HTTPRequestEncoder` and
/// `HTTPResponseDecoder`): writes one exchange at a time and completes its promise once, with the
/// status and headers (the response body is drained, not kept), or with a network error when the
/// deadline passes, the exchange is cancelled, or the connection fails or closes. An exchange
/// that ends without a complete response closes the connection, so a late answer can never be
/// taken for the next request's.
final class LeanHTTPConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = LeanHTTPExchange
    typealias OutboundOut = HTTPClientRequestPart

    private struct InFlight {
        let promise: EventLoopPromise<LeanHTTPAnswer>
        let timeout: Scheduled<Void>
        var head: HTTPResponseHead?
    }

    private var inFlight: InFlight?
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        fail("the connection was closed")
        self.context = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        guard inFlight == nil else {
            exchange.promise.succeed(LeanHTTPAnswer(response: .networkError("a request is already in flight on this connection"),
                                                    reusable: false))
            promise?.succeed()
            return
        }
        let timeout = context.eventLoop.assumeIsolated().scheduleTask(deadline: exchange.deadline) { [weak self] () -> Void in
            self?.fail("the request timed out")
        }
        inFlight = InFlight(promise: exchange.promise, timeout: timeout)
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(exchange.body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if event is LeanHTTPCancel {
            fail("the request was cancelled")
            promise?.succeed()
        } else {
            context.triggerUserOutboundEvent(event, promise: promise)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard inFlight != nil else { return fail("an answer arrived with no request in flight") }
            inFlight?.head = head
        case .body:
            break  // drained, not kept
        case .end:
            guard let done = inFlight, let head = done.head else { return fail("an answer ended with no request in flight") }
            inFlight = nil
            done.timeout.cancel()
            let response = DeliveryResponse.status(Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) })
            let reusable = head.isKeepAlive && context.channel.isActive
            if !reusable { context.close(promise: nil) }
            done.promise.succeed(LeanHTTPAnswer(response: response, reusable: reusable))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail("the connection was closed by the endpoint before the answer was complete")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(String(describing: error))
    }

    /// Ends the exchange in flight, if any, with a network error, and closes the connection.
    private func fail(_ message: String) {
        if let done = inFlight {
            inFlight = nil
            done.timeout.cancel()
            done.promise.succeed(LeanHTTPAnswer(response: .networkError(message), reusable: false))
        }
        if let context, context.channel.isActive { context.close(promise: nil) }
    }
}
