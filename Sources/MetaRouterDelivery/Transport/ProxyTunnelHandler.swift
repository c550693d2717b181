import NIOCore

/// Opens a `CONNECT` tunnel through an HTTP proxy (RFC 9110 §9.3.6), as the first handler of a
/// connection to the proxy: once active, it asks for `authority` (with Basic credentials when the
/// proxy has them) and reads the proxy's answer head. A 2xx answer completes `established` and
/// the handler removes itself, so the handlers added next (TLS, then HTTP) talk to the endpoint
/// through the tunnel; any other answer, a malformed one, or a close fails it with
/// ``ProxyTunnelError``.
final class ProxyTunnelHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The largest answer head read before the proxy counts as misbehaving.
    private static let maxHeadBytes = 16 * 1024

    private let authority: String
    private let proxy: HTTPProxy
    private let established: EventLoopPromise<Void>
    private var received: ByteBuffer?
    private var done = false

    /// A handler asking `proxy` for a tunnel to `authority` (`host:port`), completing `established`.
    init(authority: String, proxy: HTTPProxy, established: EventLoopPromise<Void>) {
        self.authority = authority
        self.proxy = proxy
        self.established = established
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { ask(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        ask(context)
        context.fireChannelActive()
    }

    /// The `CONNECT` request's bytes.
    var request: String {
        "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n" + (proxy.authorizationField ?? "") + "\r\n"
    }

    private func ask(_ context: ChannelHandlerContext) {
        guard received == nil else { return }
        received = context.channel.allocator.buffer(capacity: 256)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return context.fireChannelRead(data) }
        var bytes = unwrapInboundIn(data)
        received?.writeBuffer(&bytes)
        guard let head = received, let end = head.readableBytesView.firstRange(of: Array("\r\n\r\n".utf8)) else {
            if (received?.readableBytes ?? 0) > Self.maxHeadBytes { finish(context, .malformed("its answer head is too long")) }
            return
        }
        let headText = String(decoding: head.readableBytesView[..<end.lowerBound], as: UTF8.self)
        let statusLine = headText.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            return finish(context, .malformed("it answered \"\(statusLine.prefix(80))\""))
        }
        guard (200..<300).contains(status) else { return finish(context, .refused(statusLine)) }
        guard end.upperBound == head.readableBytesView.endIndex else {
            return finish(context, .malformed("it sent bytes after its answer, before the tunnel was used"))
        }
        done = true
        established.succeed()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done { finish(context, .closed) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if done { return context.fireErrorCaught(error) }
        done = true
        established.fail(error)
        context.close(promise: nil)
    }

    /// Fails the tunnel with `error` and closes the connection.
    private func finish(_ context: ChannelHandlerContext, _ error: ProxyTunnelError) {
        guard !done else { return }
        done = true
        established.fail(error)
        context.close(promise: nil)
    }
}

/// Why a `CONNECT` tunnel through a proxy was not opened.
enum ProxyTunnelError: Error, CustomStringConvertible {
    /// The proxy answered with this status line (a 407 wants credentials).
    case refused(String)
    /// The proxy's answer was not HTTP/1.1 as expected.
    case malformed(String)
    /// The proxy closed the connection before answering.
    case closed

    var description: String {
        switch self {
        case .refused(let line): "the proxy refused the tunnel: \(line)"
        case .malformed(let why): "the proxy's answer to CONNECT is not usable: \(why)"
        case .closed: "the proxy closed the connection before answering CONNECT"
        }
    }
}
