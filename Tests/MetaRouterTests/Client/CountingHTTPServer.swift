import JSONCore
@_spi(PerLine) import MetaRouter
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

@_spi(PerLine) @testable import MetaRouterDelivery

/// Returns once the client's pump has looked at the queue since the last call and parked, so a
/// test can then check that nothing was handed over (no sleeping).
func waitForPumpToPark(_ client: MetaRouterClient) async {
    await client.waitForPumpToPark()
}

/// A tiny loopback HTTP endpoint that counts the TCP connections it accepts and records the
/// `batch` events of each request it answers (200 `{}`).
final class CountingHTTPServer: Sendable {
    private struct State {
        var connections = 0
        var events: [JSONObject] = []
    }

    private let state = Mutex(State())
    private let channel: Mutex<(any Channel)?> = Mutex(nil)

    /// Connections accepted so far.
    var connections: Int { state.withLock { $0.connections } }
    /// Every event received, in arrival order.
    var events: [JSONObject] { state.withLock { $0.events } }

    /// Binds to an ephemeral loopback port and returns the base URL (`http://127.0.0.1:<port>`).
    func start() async throws -> String {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                self.state.withLock { $0.connections += 1 }
                return child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.configureHTTPServerPipeline()
                    try child.pipeline.syncOperations.addHandler(RecordingHandler(server: self))
                }
            }
        let bound = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        channel.withLock { $0 = bound }
        return "http://127.0.0.1:\(bound.localAddress?.port ?? 0)"
    }

    func stop() async {
        let c = channel.withLock { c -> (any Channel)? in
            defer { c = nil }
            return c
        }
        try? await c?.close()
    }

    fileprivate func record(_ body: [UInt8]) {
        let batch = (try? JSONValue(parsing: body))?.objectValue?["batch"]?.arrayValue?.compactMap(\.objectValue) ?? []
        state.withLock { $0.events.append(contentsOf: batch) }
    }
}

private final class RecordingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: CountingHTTPServer
    private var body: [UInt8] = []

    init(server: CountingHTTPServer) { self.server = server }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: body = []
        case .body(let buffer): body.append(contentsOf: buffer.readableBytesView)
        case .end:
            server.record(body)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: "2")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "{}")))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
