import CDeflate
import JSONCore
import NIOCore
import NIOHTTP1

/// What every connection of one count-only server shares: paths, the write key, limits,
/// pre-rendered answers and the stats. Immutable apart from the (locked) recorder.
final class CountOnlyEndpoint: Sendable {
    /// `{base}/v1/batch`.
    let batchPath: String
    /// `{base}/stats` and `/stats`.
    let statsPaths: [String]
    /// The write key clients must send.
    let writeKey: String
    /// The exact `Authorization` value most clients send (`Basic base64(writeKey:)`), checked
    /// first with one string comparison; anything else goes through ``BasicAuth``.
    let expectedAuthorization: String
    /// Status for requests over Segment's limits (400 or 413).
    let oversizeStatus: Int
    /// The counters.
    let stats: CountOnlyStatsRecorder
    /// `200 {"success":true}`, keep-alive (HTTP/1.1).
    let ok: ByteBuffer
    /// `200 {"success":true}` with `Connection: keep-alive` (HTTP/1.0 clients that asked for it).
    let okKeepAlive10: ByteBuffer
    /// `200 {"success":true}` with `Connection: close`.
    let okClose: ByteBuffer
    /// `100 Continue`, for clients that send `Expect: 100-continue`.
    let continueResponse: ByteBuffer

    /// Raw (possibly compressed) bodies larger than this are refused without reading them all
    /// (as ``CollectorResponder/maxRawBody``).
    static let maxRawBody = CollectorResponder.maxRawBody

    init(configuration: CollectorConfiguration, stats: CountOnlyStatsRecorder) {
        let base = configuration.normalizedBasePath
        batchPath = base + "/v1/batch"
        statsPaths = base.isEmpty ? ["/stats"] : [base + "/stats", "/stats"]
        writeKey = configuration.writeKey
        expectedAuthorization = BasicAuth.header(for: configuration.writeKey)
        oversizeStatus = configuration.oversizeStatus
        self.stats = stats
        let success = Array("{\"success\":true}".utf8)
        ok = Self.render(status: 200, body: success, connection: .keepAlive11)
        okKeepAlive10 = Self.render(status: 200, body: success, connection: .keepAlive10)
        okClose = Self.render(status: 200, body: success, connection: .close)
        continueResponse = ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\n")
    }

    /// How a response ends the exchange.
    enum ConnectionHeader {
        /// HTTP/1.1 keep-alive: no header needed.
        case keepAlive11
        /// HTTP/1.0 keep-alive: `Connection: keep-alive`.
        case keepAlive10
        /// `Connection: close`; the server closes after writing.
        case close
    }

    /// A complete HTTP/1.1 response with a JSON body.
    static func render(status: Int, body: [UInt8], connection: ConnectionHeader, omitBody: Bool = false) -> ByteBuffer {
        var head = "HTTP/1.1 \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\r\n"
        head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        switch connection {
        case .keepAlive11: break
        case .keepAlive10: head += "Connection: keep-alive\r\n"
        case .close: head += "Connection: close\r\n"
        }
        head += "\r\n"
        var buffer = ByteBuffer()
        buffer.reserveCapacity(head.utf8.count + body.count)
        buffer.writeString(head)
        if !omitBody { buffer.writeBytes(body) }
        return buffer
    }

    /// `{"success":false,"error":"reason"}`, the full collector's error body.
    static func errorBody(_ reason: String) -> [UInt8] {
        var text: [UInt8] = Array("{\"success\":false,\"error\":".utf8)
        JSONStrings.appendQuoted(reason, to: &text)
        text.append(UInt8(ascii: "}"))
        return text
    }

    /// The request target without query or fragment and without one trailing slash.
    func path(of uri: String) -> Substring {
        var path = Substring(uri)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        if path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return path
    }
}

/// A libdeflate decompressor owned by one connection (allocated at its first gzip body).
/// Used only on the connection's event loop.
final class ConnectionInflater {
    /// The decompressor; never nil once initialised.
    let decompressor: OpaquePointer

    init?() {
        guard let d = libdeflate_alloc_decompressor() else { return nil }
        decompressor = d
    }

    deinit { libdeflate_free_decompressor(decompressor) }
}

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

    private enum Encoding {
        case identity
        case gzip
        case unsupported(String)
    }

    private let endpoint: CountOnlyEndpoint
    private var phase = Phase.idle
    private var route = Route.batch
    private var encoding = Encoding.identity
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
    private var inflater: ConnectionInflater?
    /// The server is shutting down: close after the current request.
    private var quiescing = false

    /// Buffers that grew beyond this for an unusually large body are dropped after the request.
    private static let keptCapacity = 1 << 20

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
            if rawBytes > CountOnlyEndpoint.maxRawBody {
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
        let path = head.uri == endpoint.batchPath ? Substring(head.uri) : endpoint.path(of: head.uri)
        if path == endpoint.batchPath {
            if head.method == .POST {
                route = .batch
                let auth = head.headers.first(name: "authorization")
                authorized = auth == endpoint.expectedAuthorization
                    || BasicAuth.check(auth, writeKey: endpoint.writeKey) == .valid
                if let value = head.headers.first(name: "content-encoding")?.lowercased(), value != "identity" {
                    encoding = value == "gzip" ? .gzip : .unsupported(value)
                } else {
                    encoding = .identity
                }
                body.clear()
            } else {
                route = .refused(405, "method not allowed")
            }
        } else if head.method == .GET, endpoint.statsPaths.contains(where: { $0 == path }) {
            route = .stats
        } else {
            route = .refused(404, "not found")
        }
        if let length = head.headers.first(name: "content-length").flatMap({ Int($0) }) {
            if length > CountOnlyEndpoint.maxRawBody {
                refuseTooLarge(context: context)
                return
            }
            if case .batch = route, authorized, length > body.capacity { body.reserveCapacity(length) }
        }
        if head.headers.first(name: "expect")?.lowercased() == "100-continue" {
            context.writeAndFlush(wrapOutboundOut(endpoint.continueResponse), promise: nil)
        }
    }

    /// A body over ``CountOnlyEndpoint/maxRawBody``: answered at once, connection closed
    /// (as the full collector does; its body bytes are not counted).
    private func refuseTooLarge(context: ChannelHandlerContext) {
        keepAlive = false
        rawBytes = 0
        refuse(endpoint.oversizeStatus, "request body too large", context: context)
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
            refuse(status, reason, context: context)
        case .batch:
            ingest(context: context)
            if body.capacity > Self.keptCapacity { body = ByteBuffer() }
            if inflated.capacity > Self.keptCapacity { inflated = ByteBuffer() }
        }
    }

    /// The same checks, in the same order and with the same statuses, as the full collector's
    /// count-only path (`CollectorResponder.countOnlyIngest`), minus fault injection and
    /// authentication by a `writeKey` in the body.
    private func ingest(context: ChannelHandlerContext) {
        guard authorized else { return refuse(401, "missing or invalid write key", context: context) }
        let maxBody = IngestionLimits.maxBodyBytes
        let summary: BatchSkimmer.Summary?
        switch encoding {
        case .identity:
            guard body.readableBytes <= maxBody else {
                return refuse(endpoint.oversizeStatus, "body over \(maxBody) bytes", context: context)
            }
            summary = body.withUnsafeReadableBytes { BatchSkimmer.skim($0.bindMemory(to: UInt8.self)) }
        case .unsupported(let name):
            return refuse(400, "unsupported Content-Encoding \(name)", context: context)
        case .gzip:
            if inflater == nil { inflater = ConnectionInflater() }
            do {
                try GzipBody.decompress(
                    body, into: &inflated, decompressor: inflater?.decompressor, maxSize: maxBody + 1)
            } catch .tooLarge {
                return refuse(endpoint.oversizeStatus, "body over \(maxBody) bytes", context: context)
            } catch {
                return refuse(400, "invalid gzip body", context: context)
            }
            guard inflated.readableBytes <= maxBody else {
                return refuse(endpoint.oversizeStatus, "body over \(maxBody) bytes", context: context)
            }
            summary = inflated.withUnsafeReadableBytes { BatchSkimmer.skim($0.bindMemory(to: UInt8.self)) }
        }
        guard let summary else { return refuse(400, "the body has no \"batch\" array", context: context) }
        if summary.events > IngestionLimits.maxBatchEvents {
            return refuse(
                endpoint.oversizeStatus, "more than \(IngestionLimits.maxBatchEvents) events", context: context)
        }
        if summary.largestEvent > IngestionLimits.maxEventBytes {
            return refuse(endpoint.oversizeStatus, "an event is over 32 KiB", context: context)
        }
        endpoint.stats.record(bodyBytes: rawBytes, status: 200, events: summary.events)
        let response: ByteBuffer
        switch connectionHeader {
        case .keepAlive11: response = endpoint.ok
        case .keepAlive10: response = endpoint.okKeepAlive10
        case .close: response = endpoint.okClose
        }
        send(response, context: context)
    }

    /// Counts and sends an error answer with the full collector's JSON body.
    private func refuse(_ status: Int, _ reason: String, context: ChannelHandlerContext) {
        endpoint.stats.record(bodyBytes: rawBytes, status: status)
        send(
            CountOnlyEndpoint.render(
                status: status, body: CountOnlyEndpoint.errorBody(reason), connection: connectionHeader,
                omitBody: isHead),
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
        case .idle: context.close(promise: nil)
        case .reading: keepAlive = false  // answered with `Connection: close`, then closed
        case .closing: break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A request the HTTP parser cannot read gets 400 and the connection is closed, as NIO's
        // HTTPServerProtocolErrorHandler (and so the full collector) does; it is not counted.
        // Any other error just closes the connection.
        if error is HTTPParserError, phase != .closing {
            phase = .closing
            let response = CountOnlyEndpoint.render(
                status: 400, body: CountOnlyEndpoint.errorBody("malformed HTTP request"), connection: .close)
            context.writeAndFlush(wrapOutboundOut(response)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        } else {
            phase = .closing
            context.close(promise: nil)
        }
    }
}
