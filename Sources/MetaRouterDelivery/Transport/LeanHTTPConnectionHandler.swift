import NIOCore
import NIOTLS

/// The HTTP/1.1 handler of a lean connection (its only handler, or the one after SystemTLS's
/// `TLSHandler`): writes one exchange at a time, its prepared head and its body as two
/// buffers flushed together (one `writev`), reads the answer with an ``HTTPResponseParser``, and
/// completes the exchange's promise once, with the status and headers (the response body is
/// drained, not kept), or with a network error when the deadline passes, the exchange is
/// cancelled, the answer is malformed, or the connection fails or closes; a TLS failure that
/// retrying cannot fix (``TLSRefusal``) completes it as ``DeliveryResponse/tlsFailure(_:)``. An
/// exchange that ends without a complete answer closes the connection, so a late answer can
/// never be taken for the next request's; so do bytes after an answer, and an answer with no
/// request in flight.
final class LeanHTTPConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = LeanHTTPExchange
    typealias OutboundOut = ByteBuffer

    private struct InFlight {
        let promise: EventLoopPromise<LeanHTTPAnswer>
        let timeout: Scheduled<Void>
    }

    private var inFlight: InFlight?
    private var parser = HTTPResponseParser()
    private var context: ChannelHandlerContext?
    /// Completed when the TLS handshake ends (failed with its error), on a TLS connection.
    private var handshake: EventLoopPromise<Void>?

    /// Where a TLS refusal with no exchange in flight is recorded.
    private let fault: LeanConnectionFault?

    /// A handler that completes `handshake`, if given, when the connection's TLS handshake ends,
    /// and records in `fault` a TLS refusal that arrives with no exchange in flight.
    init(handshake: EventLoopPromise<Void>? = nil, fault: LeanConnectionFault? = nil) {
        self.handshake = handshake
        self.fault = fault
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        endHandshake(ChannelError.ioOnClosedChannel)
        fail("the connection was closed")
        self.context = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted? = event as? TLSUserEvent { endHandshake(nil) }
        context.fireUserInboundEventTriggered(event)
    }

    /// Completes the handshake promise, if still pending: succeeded when `error` is nil.
    private func endHandshake(_ error: (any Error)?) {
        guard let pending = handshake else { return }
        handshake = nil
        if let error { pending.fail(error) } else { pending.succeed() }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        guard inFlight == nil else {
            exchange.promise.succeed(
                LeanHTTPAnswer(
                    response: .networkError("a request is already in flight on this connection"),
                    reusable: false))
            promise?.succeed()
            return
        }
        let timeout = context.eventLoop.assumeIsolated().scheduleTask(deadline: exchange.deadline) { [weak self] () -> Void in
            self?.fail("the request timed out")
        }
        inFlight = InFlight(promise: exchange.promise, timeout: timeout)
        var head = context.channel.allocator.buffer(capacity: exchange.head.maxSize)
        exchange.head.write(to: &head)
        // Two buffers flushed together: the channel writes them with one writev.
        context.write(wrapOutboundOut(head), promise: nil)
        context.writeAndFlush(wrapOutboundOut(exchange.body), promise: promise)
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
        var bytes = unwrapInboundIn(data)
        guard inFlight != nil else { return fail("an answer arrived with no request in flight") }
        do {
            guard let answer = try parser.read(&bytes) else { return }
            // Bytes after the answer belong to no request: the connection is not used again.
            complete(answer, reusable: answer.keepAlive && bytes.readableBytes == 0, context: context)
        } catch {
            fail("the answer is not HTTP/1.1 this client reads: \(error)")
        }
    }

    /// Completes the exchange in flight with `answer`; closes the connection unless `reusable`.
    private func complete(_ answer: HTTPResponseParser.Answer, reusable: Bool, context: ChannelHandlerContext) {
        guard let done = inFlight else { return }
        inFlight = nil
        done.timeout.cancel()
        let response = DeliveryResponse.status(answer.status, headers: answer.headers.map { ($0.name, $0.value) })
        let keep = reusable && context.channel.isActive
        if !keep { context.close(promise: nil) }
        done.promise.succeed(LeanHTTPAnswer(response: response, reusable: keep))
    }

    func channelInactive(context: ChannelHandlerContext) {
        endHandshake(ChannelError.ioOnClosedChannel)
        // An answer whose body runs to the close ends here.
        if inFlight != nil, let answer = try? parser.connectionClosed() {
            complete(answer, reusable: false, context: context)
        }
        fail("the connection was closed by the endpoint before the answer was complete")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        endHandshake(error)
        if let refusal = TLSRefusal.describe(error) {
            if inFlight == nil { fault?.record(refusal) }
            fail(.tlsFailure(refusal))
        } else {
            fail(String(describing: error))
        }
    }

    /// Ends the exchange in flight, if any, with a network error, and closes the connection.
    private func fail(_ message: String) {
        fail(.networkError(message))
    }

    /// Ends the exchange in flight, if any, with `response`, and closes the connection.
    private func fail(_ response: DeliveryResponse) {
        if let done = inFlight {
            inFlight = nil
            done.timeout.cancel()
            done.promise.succeed(LeanHTTPAnswer(response: response, reusable: false))
        }
        if let context, context.channel.isActive { context.close(promise: nil) }
    }
}

extension HTTPResponseParser {
    /// ``read(_:)`` from a buffer's readable bytes, moving its reader index past those read.
    mutating func read(_ bytes: inout ByteBuffer) throws(Malformed) -> Answer? {
        let view = bytes.readableBytesView
        // Safe: the pointer is used only inside the closure, over the buffer's readable bytes.
        let result = view.withUnsafeBytes { raw in Result { () throws(Malformed) in try self.read(raw) } }
        let (answer, consumed) = try result.get()
        bytes.moveReaderIndex(forwardBy: consumed)
        return answer
    }
}
