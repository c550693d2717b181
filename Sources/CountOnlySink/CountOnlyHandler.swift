import GzipCodec
import IngestionChecks
import NIOCore
import NIOHTTP1
import SegmentAPI

/// One connection of the count-only server: HTTP/1.1 requests from `HTTPRequestDecoder` in,
/// complete pre-rendered responses (plain `ByteBuffer`s, no response encoder) out.
///
/// Requests are answered in order as each one's `.end` arrives, so keep-alive and pipelining
/// need no extra handler. The body of a batch request is accumulated into one buffer that the
/// connection keeps and reuses (as is the gzip output buffer and decompressor).
final class CountOnlyHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    private enum Phase {
        /// Between requests.
        case idle
        /// A request's head has arrived; its body is coming.
        case reading
        /// A `Connection: close` answer has been written (or the request was refused early):
        /// everything else the client sends is ignored until the connection closes.
        case closing
    }

    /// What the current request will get.
    private enum Route {
        /// `POST {base}/v1/batch`.
        case batch
        /// `GET /stats`.
        case stats
        /// Anything else: this status and reason once the body has been read.
        case refused(Int, String)
    }

    private let endpoint: CountOnlyEndpoint
    private var phase = Phase.idle
    private var route = Route.batch
    /// The current batch request's `Authorization` and `Content-Encoding` headers.
    private var authorization: String?
    private var contentEncoding: String?
    /// Whether the Basic header is valid: only then is the body kept.
    private var authorized = false
    private var keepAlive = true
    private var http10 = false
    private var isHead = false
    /// Body bytes of the current request as received.
    private var rawBytes = 0
    /// The current batch body, accumulated; reused from request to request.
    private var body = ByteBuffer()
    /// The gunzipped body; reused likewise.
    private var inflated = ByteBuffer()
    /// The connection's gzip decompressor, created at its first gzip body and reset for each.
    private var inflater: GzipInflater?
    /// The server is shutting down: close after the current request.
    private var quiescing = false

    /// Buffers that grew beyond this for an unusually large body are dropped after the request.
    private static let keptCapacity = 1 << 20
    /// How long a connection still busy at shutdown may take before it is closed anyway.
    static let shutdownGrace: TimeAmount = .seconds(10)

    init(endpoint: CountOnlyEndpoint) {
        self.endpoint = endpoint
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard case .idle = phase else { return }
            start(head, context: context)
        case .body(var part):
            guard case .reading = phase else { return }
            rawBytes += part.readableBytes
            if rawBytes > SegmentLimits.maxRawBodyBytes {
                refuseTooLarge(context: context)
                return
            }
            if case .batch = route, authorized { body.writeBuffer(&part) }
        case .end:
            guard case .reading = phase else { return }
            phase = .idle
            finish(context: context)
        }
    }

    private func start(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        phase = .reading
        keepAlive = head.isKeepAlive && !quiescing
        http10 = head.version.major == 1 && head.version.minor == 0
        isHead = head.method == .HEAD
        rawBytes = 0
        let batchPath = endpoint.paths.batch
        let path = head.uri == batchPath ? Substring(head.uri) : IngestionPaths.path(of: head.uri)
        if path == batchPath {
            if head.method == .POST {
                route = .batch
                authorization = head.headers.first(name: "authorization")
                contentEncoding = head.headers.first(name: "content-encoding")
                authorized = endpoint.policy.authorization(authorization) == .valid
                body.clear()
            } else {
                route = .refused(405, "method not allowed")
            }
        } else if head.method == .GET, endpoint.paths.stats.contains(where: { $0 == path }) {
            route = .stats
        } else {
            route = .refused(404, "not found")
        }
        if let length = head.headers.first(name: "content-length").flatMap({ Int($0) }) {
            if length > SegmentLimits.maxRawBodyBytes {
                refuseTooLarge(context: context)
                return
            }
            if case .batch = route, authorized, length > body.capacity { body.reserveCapacity(length) }
        }
        if head.headers.first(name: "expect")?.lowercased() == "100-continue" {
            context.writeAndFlush(wrapOutboundOut(endpoint.continueResponse), promise: nil)
        }
    }

    /// A body over ``SegmentLimits/maxRawBodyBytes``: answered at once, connection closed
    /// (as the full collector does; its body bytes are not counted).
    private func refuseTooLarge(context: ChannelHandlerContext) {
        keepAlive = false
        rawBytes = 0
        refuse(endpoint.policy.rawBodyTooLarge, context: context)
    }

    /// Answers the request whose `.end` just arrived.
    private func finish(context: ChannelHandlerContext) {
        switch route {
        case .stats:
            let text = endpoint.stats.snapshot().jsonText
            send(
                CountOnlyEndpoint.render(
                    status: 200, body: Array(text.utf8), connection: connectionHeader, omitBody: isHead),
                context: context)
        case .refused(let status, let reason):
            refuse(IngestionRefusal(status: status, reason: reason), context: context)
        case .batch:
            ingest(context: context)
            if body.capacity > Self.keptCapacity { body = ByteBuffer() }
            if inflated.capacity > Self.keptCapacity { inflated = ByteBuffer() }
        }
    }

    /// The shared ingestion checks (``IngestionPolicy``, as the full collector applies them),
    /// then the count. Fault injection and a write key in the body are not supported here.
    private func ingest(context: ChannelHandlerContext) {
        if inflater == nil, contentEncoding?.lowercased() == "gzip" { inflater = try? GzipInflater() }
        let checked: IngestionPolicy.Checked
        do {
            checked = try endpoint.policy.check(
                authorization: authorization, contentEncoding: contentEncoding, body: body, headerRequired: true,
                scratch: &inflated, inflater: inflater)
        } catch {
            return refuse(error, context: context)
        }
        let events = checked.shape?.events ?? 0
        endpoint.stats.record(bodyBytes: rawBytes, status: 200, events: events)
        send(endpoint.success(connectionHeader), context: context)
    }

    /// Counts and sends an error answer with the full collector's JSON body.
    private func refuse(_ refusal: IngestionRefusal, context: ChannelHandlerContext) {
        if refusal.closesConnection { keepAlive = false }
        endpoint.stats.record(bodyBytes: rawBytes, status: refusal.status)
        send(
            CountOnlyEndpoint.render(
                status: refusal.status, body: refusal.jsonBody, connection: connectionHeader, omitBody: isHead),
            context: context)
    }

    private var connectionHeader: CountOnlyEndpoint.ConnectionHeader {
        keepAlive ? (http10 ? .keepAlive10 : .keepAlive11) : .close
    }

    private func send(_ response: ByteBuffer, context: ChannelHandlerContext) {
        if keepAlive {
            context.writeAndFlush(wrapOutboundOut(response), promise: nil)
        } else {
            phase = .closing
            context.writeAndFlush(wrapOutboundOut(response)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        quiescing = true
        switch phase {
        case .idle:
            context.close(promise: nil)
        case .reading:
            keepAlive = false  // answered with `Connection: close`, then closed
            let channel = context.channel
            context.eventLoop.scheduleTask(in: Self.shutdownGrace) { channel.close(promise: nil) }
        case .closing:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A request the HTTP parser cannot read gets 400 and the connection is closed, as NIO's
        // HTTPServerProtocolErrorHandler (and so the full collector) does; it is not counted.
        // Any other error just closes the connection.
        if error is HTTPParserError, phase != .closing {
            phase = .closing
            let response = CountOnlyEndpoint.render(
                status: 400, body: IngestionRefusal.jsonBody("malformed HTTP request"), connection: .close)
            context.writeAndFlush(wrapOutboundOut(response)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        } else {
            phase = .closing
            context.close(promise: nil)
        }
    }
}
