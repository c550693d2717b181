import IngestionChecks
import NIOCore
import NIOHTTP1
import SegmentAPI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One connection of the collector, after NIO's HTTP/1.1 codec: it reads each request whole
/// (up to ``SegmentLimits/maxRawBodyBytes``), asks `respond` for the answer in a task of its own
/// (the store and the fault injection are async), and writes it.
///
/// Requests are answered one at a time, in order: parts of a pipelined request that arrive while
/// one is being answered wait. A body over the limit is answered as soon as it passes the limit
/// (the endpoint gets no body and refuses it), and the connection closes. `Connection: close`,
/// HTTP/1.0 without keep-alive, an answer that closes, or the server shutting down close the
/// connection after the answer; an answer that resets closes it with a TCP reset (SO_LINGER 0).
/// A request the HTTP parser cannot read gets 400 and the connection closes.
final class CollectorHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Answers one request.
    typealias Respond = @Sendable (CollectorRequest) async -> CollectorResponse

    private enum Phase {
        /// Between requests.
        case idle
        /// A request's head has arrived; its body is coming.
        case reading(HTTPRequestHead)
        /// The request is being answered.
        case answering
        /// The connection closes once its answer is written; the client's bytes are ignored.
        case closing
    }

    private let respond: Respond
    private var phase = Phase.idle
    private var body = ByteBuffer()
    /// Parts that arrived while a request was being answered.
    private var waiting: [HTTPServerRequestPart] = []
    /// The server is shutting down: close after the current request.
    private var quiescing = false
    /// The request being answered was over the size limit: the rest of what arrives is dropped
    /// (the connection closes after the answer).
    private var discarding = false
    /// The parser failed on bytes after the request being answered: that answer goes out first,
    /// then the 400, then the close.
    private var malformedAfterAnswer = false

    /// How long a connection still busy at shutdown may take before it is closed anyway.
    private static let shutdownGrace: TimeAmount = .seconds(10)

    init(respond: @escaping Respond) {
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if discarding { return }
        if case .answering = phase { return waiting.append(part) }
        handle(part, context: context)
    }

    private func handle(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch (part, phase) {
        case (.head(let head), .idle):
            phase = .reading(head)
            body.clear()
            let length = head.headers.first(name: "content-length").flatMap { Int($0) } ?? 0
            if length > SegmentLimits.maxRawBodyBytes { return answer(head, body: nil, context: context) }
            if head.headers.first(name: "expect")?.lowercased() == "100-continue" {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            }
        case (.body(var bytes), .reading(let head)):
            guard body.readableBytes + bytes.readableBytes <= SegmentLimits.maxRawBodyBytes else {
                return answer(head, body: nil, context: context)
            }
            body.writeBuffer(&bytes)
        case (.end, .reading(let head)):
            answer(head, body: body, context: context)
        default:
            break  // between a refused request and the close, or a part out of order
        }
    }

    /// Asks for the answer to the request with `head` and `body` (nil: over the limit) and writes it.
    private func answer(_ head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
        phase = .answering
        if body == nil { discarding = true }
        let request = CollectorRequest(method: head.method, uri: head.uri, headers: head.headers, body: body, channel: context.channel)
        let promise = context.eventLoop.makePromise(of: CollectorResponse.self)
        promise.completeWithTask { [respond] in await respond(request) }
        promise.futureResult.assumeIsolated().whenSuccess { response in
            self.write(response, to: head, overLimit: body == nil, context: context)
        }
    }

    private func write(_ response: CollectorResponse, to request: HTTPRequestHead, overLimit: Bool, context: ChannelHandlerContext) {
        if response.resetsConnection {
            phase = .closing
            return Self.reset(context.channel)
        }
        let keepAlive = request.isKeepAlive && !response.closesConnection && !overLimit && !quiescing
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        headers.replaceOrAdd(name: "Content-Length", value: String(response.body.readableBytes))
        if !keepAlive {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if request.version == .http1_0 {
            headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        if request.method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil) }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if malformedAfterAnswer { return sendMalformed(context) }
        guard keepAlive else {
            phase = .closing
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            return
        }
        phase = .idle
        while case .idle = phase, !waiting.isEmpty { handle(waiting.removeFirst(), context: context) }
        while case .reading = phase, !waiting.isEmpty { handle(waiting.removeFirst(), context: context) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else { return context.fireUserInboundEventTriggered(event) }
        quiescing = true
        switch phase {
        case .idle:
            context.close(promise: nil)
        case .reading, .answering:
            let channel = context.channel
            context.eventLoop.scheduleTask(in: Self.shutdownGrace) { channel.close(promise: nil) }
        case .closing:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A request the HTTP parser cannot read gets 400 and the connection is closed (not
        // counted), as the count-only sink does; bytes that fail to parse behind a request being
        // answered get theirs after that answer. Any other error just closes the connection.
        guard error is HTTPParserError else {
            phase = .closing
            return context.close(promise: nil)
        }
        switch phase {
        case .idle, .reading: sendMalformed(context)
        case .answering: malformedAfterAnswer = true
        case .closing: break
        }
    }

    /// Answers 400 `malformed HTTP request` and closes the connection.
    private func sendMalformed(_ context: ChannelHandlerContext) {
        phase = .closing
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Connection", "close")])
        let text = IngestionRefusal.jsonBody("malformed HTTP request")
        headers.add(name: "Content-Length", value: String(text.count))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: text)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Closes `channel` with a TCP reset (SO_LINGER 0) instead of answering.
    private static func reset(_ channel: any Channel) {
        if let options = channel as? any SocketOptionProvider {
            options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        } else {
            channel.close(promise: nil)
        }
    }
}
