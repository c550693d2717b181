import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// What ``ScriptedHTTPServer`` does with one request.
enum ScriptedAnswer: Sendable {
    /// Answers `status` with `headers` and a body of `bodyBytes` bytes; `close` ends the
    /// connection after the answer (`Connection: close`).
    case status(Int, headers: [(String, String)] = [], bodyBytes: Int = 0, close: Bool = false)
    /// Resets the connection (RST) without answering.
    case reset
    /// Never answers.
    case hang
}

/// One request as the scripted server received it.
struct ScriptedRequest: Sendable {
    let head: HTTPRequestHead
    let body: [UInt8]
    /// Which accepted connection (0, 1, ...) carried it.
    let connection: Int
}

/// A loopback HTTP/1.1 server on bare SwiftNIO whose answer to the n-th request (from 0) is
/// `script(n)`; it records every request and counts connections.
final class ScriptedHTTPServer: Sendable {
    private struct Log {
        var connections = 0
        var requests: [ScriptedRequest] = []
        var children: [any Channel] = []
        /// Tasks waiting until this many requests arrived.
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let port: Int
    private let channel: any Channel
    private let log: Mutex<Log>
    let script: @Sendable (Int) -> ScriptedAnswer

    private init(channel: any Channel, script: @escaping @Sendable (Int) -> ScriptedAnswer) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
        self.log = Mutex(Log())
        self.script = script
    }

    var connections: Int { log.withLock { $0.connections } }
    var requests: [ScriptedRequest] { log.withLock { $0.requests } }

    /// Starts a server on an ephemeral 127.0.0.1 port.
    static func start(_ script: @escaping @Sendable (Int) -> ScriptedAnswer) async throws -> ScriptedHTTPServer {
        let box = ServerBox()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    guard let server = box.server else { throw ChannelError.ioOnClosedChannel }
                    let index = server.accepted(child)
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    try child.pipeline.syncOperations.addHandler(ScriptedHandler(server: server, connection: index))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = ScriptedHTTPServer(channel: channel, script: script)
        box.set(server)
        return server
    }

    fileprivate func accepted(_ child: any Channel) -> Int {
        log.withLock {
            $0.children.append(child)
            $0.connections += 1
            return $0.connections - 1
        }
    }

    /// Records `request`, wakes the waiters it satisfies, and returns what to do with it.
    fileprivate func received(_ request: ScriptedRequest) -> ScriptedAnswer {
        let (index, ready) = log.withLock { l -> (Int, [CheckedContinuation<Void, Never>]) in
            l.requests.append(request)
            let count = l.requests.count
            let ready = l.waiters.filter { $0.count <= count }.map(\.continuation)
            l.waiters.removeAll { $0.count <= count }
            return (count - 1, ready)
        }
        for waiter in ready { waiter.resume() }
        return script(index)
    }

    /// Returns once `count` requests have arrived (at once if they have): woken by the arrival.
    func waitForRequests(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = log.withLock { l -> Bool in
                if l.requests.count >= count { return true }
                l.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Closes the listening socket and every connection.
    func stop() async {
        try? await channel.close()
        for child in log.withLock({ $0.children }) { try? await child.close() }
    }
}

/// Lets the child initializer reach the server created after `bind` returns.
private final class ServerBox: Sendable {
    private let state = Mutex<ScriptedHTTPServer?>(nil)
    var server: ScriptedHTTPServer? { state.withLock { $0 } }
    func set(_ server: ScriptedHTTPServer) { state.withLock { $0 = server } }
}

private final class ScriptedHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: ScriptedHTTPServer
    private let connection: Int
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(server: ScriptedHTTPServer, connection: Int) {
        self.server = server
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body = []
        case .body(let buffer):
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head else { return }
            answer(server.received(ScriptedRequest(head: head, body: body, connection: connection)), context: context)
        }
    }

    private func answer(_ answer: ScriptedAnswer, context: ChannelHandlerContext) {
        switch answer {
        case .hang:
            break
        case .reset:
            // SO_LINGER 0: close() sends RST instead of FIN.
            let channel = context.channel
            let lingering =
                (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
                ?? channel.eventLoop.makeSucceededVoidFuture()
            lingering.whenComplete { _ in channel.close(promise: nil) }
        case .status(let code, let headers, let bodyBytes, let close):
            var fields = HTTPHeaders(headers)
            fields.add(name: "Content-Length", value: String(bodyBytes))
            if close { fields.add(name: "Connection", value: "close") }
            let head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: code), headers: fields)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if bodyBytes > 0 {
                let bytes = context.channel.allocator.buffer(repeating: UInt8(ascii: "x"), count: bodyBytes)
                context.write(wrapOutboundOut(.body(.byteBuffer(bytes))), promise: nil)
            }
            let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if close {
                let channel = context.channel
                done.whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }
}
