import NIOCore
import NIOHTTP1
import NIOTLS

/// The last handler of an ``ObjectHTTPClient`` connection, after NIOHTTP1's request encoder and
/// response decoder (and ``SystemTLS/TLSHandler`` first, for HTTPS). It carries one
/// ``HTTPExchange`` at a time: writes its request, hands the answer's parts to its
/// ``ResponseStream``, and when the answer ended and allows keep-alive, hands the connection to
/// `whenIdle` (the idle pool).
///
/// The channel runs with `autoRead` off. Until the head arrives the handler keeps a read asked
/// for; after it, a read is asked for only when the stream says a reader waits with nothing
/// buffered. While idle it keeps a read asked for, so a close by the server is noticed at once.
///
/// An exchange fails, and the connection closes, when the deadline passes before the head, the
/// connection closes or fails before the end, the answer is malformed, or an answer arrives with
/// no request in flight.
final class HTTPConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPExchange
    typealias OutboundOut = HTTPClientRequestPart

    /// The exchange in flight.
    private var current: ResponseStream?
    /// Fails the exchange in flight when its deadline passes before the head.
    private var headTimeout: Scheduled<Void>?
    /// Whether the answer in flight allows the connection to carry another request.
    private var keepAlive = false
    /// Whether the head of the answer in flight has arrived.
    private var headArrived = false
    /// Body bytes of the answer in flight so far (for messages).
    private var bodyBytes = 0
    /// Completed when the TLS handshake ends (failed with its error), on an HTTPS connection.
    private var handshake: EventLoopPromise<Void>?
    /// Takes the connection when an answer ended and it may carry the next request.
    private let whenIdle: @Sendable (any Channel) -> Void
    private var context: ChannelHandlerContext?

    /// A handler that completes `handshake`, if given, when the TLS handshake ends, and hands its
    /// channel to `whenIdle` after each answer that leaves it reusable.
    init(handshake: EventLoopPromise<Void>?, whenIdle: @escaping @Sendable (any Channel) -> Void) {
        self.handshake = handshake
        self.whenIdle = whenIdle
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if handshake != nil, context.channel.isActive { context.read() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        endHandshake(ObjectHTTPError(.tls, "the connection closed during the TLS handshake"))
        finish()?.fail(.closed(phase))
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        if handshake != nil { context.read() }  // the server's handshake messages
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted? = event as? TLSUserEvent { endHandshake(nil) }
        context.fireUserInboundEventTriggered(event)
    }

    /// Completes the handshake promise, if still pending: succeeded when `error` is nil.
    private func endHandshake(_ error: ObjectHTTPError?) {
        guard let pending = handshake else { return }
        handshake = nil
        if let error { pending.fail(error) } else { pending.succeed() }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        guard current == nil, context.channel.isActive else {
            let refused = ObjectHTTPError(
                .closed, current == nil ? "the connection closed before the request was sent" : "the connection is carrying another request")
            exchange.stream.fail(refused)
            promise?.fail(refused)
            return
        }
        current = exchange.stream
        (keepAlive, headArrived, bodyBytes) = (false, false, 0)
        let timeout = exchange.timeout
        headTimeout = context.eventLoop.assumeIsolated().scheduleTask(deadline: exchange.deadline) { [weak self] () -> Void in
            self?.failAndClose(ObjectHTTPError(.timedOut, "the answer did not start within \(timeout)"))
        }
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        if let body = exchange.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        guard let stream = current, !headArrived || !isHead(part) else {
            return failAndClose(ObjectHTTPError(.malformedAnswer, "an answer arrived with no request in flight"))
        }
        switch part {
        case .head(let head):
            headTimeout?.cancel()
            headTimeout = nil
            (headArrived, keepAlive) = (true, head.isKeepAlive)
            stream.receive(head: head)
        case .body(let chunk):
            bodyBytes += chunk.readableBytes
            stream.receive(body: chunk)
        case .end:
            _ = finish()
            if stream.receiveEnd() && keepAlive && context.channel.isActive {
                context.read()  // while idle: notices a close by the server
                whenIdle(context.channel)
            } else {
                context.close(promise: nil)
            }
            stream.wake()  // after the connection is back in the pool
        }
    }

    /// Whether `part` is a head.
    private func isHead(_ part: HTTPClientResponsePart) -> Bool {
        if case .head = part { return true }
        return false
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if let current {
            current.wake()
            if current.wantsRead { context.read() }
        }
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        endHandshake(ObjectHTTPError(.tls, "the connection closed during the TLS handshake"))
        finish()?.fail(.closed(phase))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? ObjectHTTPError {
            endHandshake(error)
        } else {
            endHandshake(.connection(error, phase: "during the handshake"))
        }
        failAndClose(.connection(error, phase: phase))
    }

    /// How far the answer in flight has come, for messages.
    private var phase: String {
        ObjectHTTPError.phase(headArrived: headArrived, bodyBytes: bodyBytes)
    }

    /// Ends the exchange in flight, if any, with `error`, and closes the connection.
    private func failAndClose(_ error: ObjectHTTPError) {
        finish()?.fail(error)
        context?.close(promise: nil)
    }

    /// Detaches the exchange in flight (returned) and cancels its head timeout.
    private func finish() -> ResponseStream? {
        headTimeout?.cancel()
        headTimeout = nil
        defer { current = nil }
        return current
    }
}
