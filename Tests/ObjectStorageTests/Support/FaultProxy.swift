import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy in front of a server that, on its first connection only (or on every one), cuts
/// the connection or stops forwarding the answer after `afterBytes` bytes of it, and records what
/// clients send.
final class FaultProxy: Sendable {
    enum Fault: Sendable {
        /// Close both sides (the client sees the answer end early).
        case cut
        /// Forward nothing more (the client sees a stalled read).
        case stall
    }

    /// What the proxy saw on each connection, in order.
    struct Connection: Sendable {
        /// What the client sent (its request heads).
        var sent = ""
        /// Body bytes of the answer forwarded to the client (after the head's blank line).
        var bodyBytesForwarded = 0
    }

    let port: Int
    private let channel: any Channel
    private let log: NIOLockedValueBox<[Connection]>
    private let fault: FaultTaken

    private init(port: Int, channel: any Channel, log: NIOLockedValueBox<[Connection]>, fault: FaultTaken) {
        self.port = port
        self.channel = channel
        self.log = log
        self.fault = fault
    }

    /// Returns once the fault took effect on some connection (at once if it has): woken by it.
    func waitForFault() async { await fault.wait() }

    /// Every connection so far.
    var connections: [Connection] { log.withLockedValue { $0 } }

    /// Starts a proxy on a free loopback port to `upstreamPort`; the fault hits the first
    /// connection, or every connection when `everyConnection` is true.
    static func start(upstreamPort: Int, fault: Fault, afterBytes: Int, everyConnection: Bool = false) async throws -> FaultProxy {
        let log = NIOLockedValueBox<[Connection]>([])
        let taken = FaultTaken()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                let index = log.withLockedValue {
                    $0.append(Connection()); return $0.count - 1
                }
                let limit = index == 0 || everyConnection ? afterBytes : nil
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandler(
                                Relay(peer: inbound, direction: .answer(limit: limit, fault: fault), index: index, log: log, taken: taken))
                        }
                    }
                    .connect(host: "127.0.0.1", port: upstreamPort)
                    .flatMapThrowing { outbound in
                        try inbound.pipeline.syncOperations.addHandler(
                            Relay(peer: outbound, direction: .request, index: index, log: log, taken: taken))
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FaultProxy(port: channel.localAddress?.port ?? 0, channel: channel, log: log, fault: taken)
    }

    func stop() async throws { try await channel.close() }
}

/// Opens once, when a fault takes effect; waiters are resumed then (or at once after).
private final class FaultTaken: Sendable {
    private let state = NIOLockedValueBox<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { s -> Bool in
                if s.open { return true }
                s.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// Forwards one direction of a proxied connection.
private final class Relay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    enum Direction {
        case request
        case answer(limit: Int?, fault: FaultProxy.Fault)
    }

    private let peer: any Channel
    private let direction: Direction
    private let index: Int
    private let log: NIOLockedValueBox<[FaultProxy.Connection]>
    private var forwarded = 0
    private var headSeen: [UInt8] = []
    private var headEnded = false
    private var stopped = false
    private let taken: FaultTaken

    init(peer: any Channel, direction: Direction, index: Int, log: NIOLockedValueBox<[FaultProxy.Connection]>, taken: FaultTaken) {
        self.peer = peer
        self.direction = direction
        self.index = index
        self.log = log
        self.taken = taken
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        switch direction {
        case .request:
            let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? ""
            log.withLockedValue { $0[index].sent += text }
            peer.writeAndFlush(buffer, promise: nil)
        case .answer(let limit, let fault):
            guard !stopped else { return }
            var sending = buffer
            if let limit, forwarded + buffer.readableBytes >= limit {
                sending = buffer.readSlice(length: limit - forwarded) ?? ByteBuffer()
                stopped = true
            }
            count(sending)
            forwarded += sending.readableBytes
            let write = peer.writeAndFlush(sending)
            if stopped { write.whenComplete { [taken] _ in taken.open() } }
            if stopped, case .cut = fault {
                let (peer, channel) = (peer, context.channel)
                write.whenComplete { _ in
                    peer.close(promise: nil)
                    channel.close(promise: nil)
                }
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A stalled answer stays stalled when the server finishes sending the rest and closes:
        // passing the close on would turn the stall into a cut.
        if stopped, case .answer(_, .stall) = direction { return }
        peer.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Counts the answer's body bytes (those after the head's blank line).
    private func count(_ buffer: ByteBuffer) {
        if headEnded {
            log.withLockedValue { $0[index].bodyBytesForwarded += buffer.readableBytes }
            return
        }
        headSeen += buffer.readableBytesView
        let blankLine: [UInt8] = [13, 10, 13, 10]
        guard headSeen.count >= 4 else { return }
        for start in 0...(headSeen.count - 4) where Array(headSeen[start..<start + 4]) == blankLine {
            headEnded = true
            let body = headSeen.count - (start + 4)
            log.withLockedValue { $0[index].bodyBytesForwarded += body }
            return
        }
    }
}
