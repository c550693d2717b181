import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy on a free loopback port in front of a server (moto, in the S3 tests) that faults
/// one connection's answer, or every one's: once `afterBytes` bytes of it went through, it cuts
/// the connection (both sides closed) or stalls it (nothing more forwarded, not even the close).
/// Everything else is forwarded. It records what clients send on each connection.
package final class FaultProxy: Sendable {
    /// What happens to a faulted answer.
    package enum Fault: Sendable {
        /// Close both sides (the client sees the answer end early).
        case cut
        /// Forward nothing more (the client sees a stalled read).
        case stall
    }

    /// Which connections are faulted.
    package enum Target: Sendable {
        /// The first connection.
        case firstConnection
        /// Every connection.
        case everyConnection
        /// The first connection whose request starts with `requestLine` (`GET /bucket/key `) and
        /// asks for the whole object (no `Range`). With `refuseReopens`, every later connection
        /// whose request starts with it is closed as soon as it arrives, so reopening fails.
        case wholeObject(requestLine: String, refuseReopens: Bool)
    }

    /// What the proxy saw on one connection.
    package struct Connection: Sendable {
        /// What the client sent (its request heads).
        package var sent = ""
        /// Body bytes of the answer forwarded to the client (after the head's blank line).
        package var bodyBytesForwarded = 0
    }

    /// The port it listens on.
    package let port: Int
    private let channel: any Channel
    private let state: NIOLockedValueBox<ProxyState>
    private let applied: Latch

    private init(port: Int, channel: any Channel, state: NIOLockedValueBox<ProxyState>, applied: Latch) {
        self.port = port
        self.channel = channel
        self.state = state
        self.applied = applied
    }

    /// `http://127.0.0.1:PORT`.
    package var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Every connection so far, in order.
    package var connections: [Connection] { state.withLockedValue { $0.connections } }

    /// What clients sent on each connection, in order.
    package var requests: [String] { connections.map(\.sent) }

    /// Whether a connection was chosen for the fault.
    package var faulted: Bool { state.withLockedValue { $0.chosen } }

    /// Returns once the fault took effect on some connection (at once if it has), or when the
    /// calling task is cancelled.
    package func waitForFault() async { await applied.wait() }

    /// Starts a proxy to the server on loopback port `upstreamPort`.
    package static func start(
        upstreamPort: Int, fault: Fault, afterBytes: Int, target: Target = .firstConnection
    ) async throws -> FaultProxy {
        let state = NIOLockedValueBox(ProxyState())
        let applied = Latch()
        let rule = ProxyRule(fault: fault, afterBytes: afterBytes, target: target)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                let (index, chosen) = state.withLockedValue { $0.accept(rule.target) }
                let decision = NIOLockedValueBox<Bool?>(chosen)  // whether this connection is faulted
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandler(
                                AnswerRelay(peer: inbound, index: index, rule: rule, decision: decision, state: state, applied: applied))
                        }
                    }
                    .connect(host: "127.0.0.1", port: upstreamPort)
                    .flatMapThrowing { outbound in
                        try inbound.pipeline.syncOperations.addHandler(
                            RequestRelay(peer: outbound, index: index, rule: rule, state: state, decision: decision))
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FaultProxy(port: channel.localAddress?.port ?? 0, channel: channel, state: state, applied: applied)
    }

    /// Stops listening.
    package func stop() async throws { try await channel.close() }
}

/// What the proxy shares between its connections.
private struct ProxyState {
    var connections: [FaultProxy.Connection] = []
    /// Whether a connection was chosen for the fault.
    var chosen = false

    /// Records a new connection: its index, and whether it is faulted (nil: decided by its request).
    mutating func accept(_ target: FaultProxy.Target) -> (Int, Bool?) {
        connections.append(FaultProxy.Connection())
        let index = connections.count - 1
        switch target {
        case .firstConnection:
            if index == 0 { chosen = true }
            return (index, index == 0)
        case .everyConnection:
            chosen = true
            return (index, true)
        case .wholeObject:
            return (index, nil)
        }
    }
}

/// The proxy's fault: what, after how many answer bytes, on which connections.
private struct ProxyRule: Sendable {
    var fault: FaultProxy.Fault
    var afterBytes: Int
    var target: FaultProxy.Target
}

/// Client to server: recorded and forwarded, unless it is a reopen to refuse.
private final class RequestRelay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let peer: any Channel
    private let index: Int
    private let rule: ProxyRule
    private let state: NIOLockedValueBox<ProxyState>
    private let decision: NIOLockedValueBox<Bool?>

    init(peer: any Channel, index: Int, rule: ProxyRule, state: NIOLockedValueBox<ProxyState>, decision: NIOLockedValueBox<Bool?>) {
        self.peer = peer
        self.index = index
        self.rule = rule
        self.state = state
        self.decision = decision
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? ""
        let refuse = state.withLockedValue { s -> Bool in
            s.connections[index].sent += text
            guard case .wholeObject(let requestLine, let refuseReopens) = rule.target else { return false }
            let matches = text.hasPrefix(requestLine)
            if matches, !text.lowercased().contains("\r\nrange:"), !s.chosen, decision.withLockedValue({ $0 }) == nil {
                s.chosen = true
                decision.withLockedValue { $0 = true }
                return false
            }
            return matches && s.chosen && refuseReopens && decision.withLockedValue({ $0 }) != true
        }
        if refuse {
            context.close(promise: nil)
            peer.close(promise: nil)
            return
        }
        peer.writeAndFlush(buffer, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) { peer.close(promise: nil) }
    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}

/// Server to client: forwarded; on a faulted connection, cut or stalled after `afterBytes`.
private final class AnswerRelay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let peer: any Channel
    private let index: Int
    private let rule: ProxyRule
    private let decision: NIOLockedValueBox<Bool?>
    private let state: NIOLockedValueBox<ProxyState>
    private let applied: Latch
    private var forwarded = 0
    private var stopped = false
    private var headSeen: [UInt8] = []
    private var headEnded = false

    init(
        peer: any Channel, index: Int, rule: ProxyRule, decision: NIOLockedValueBox<Bool?>,
        state: NIOLockedValueBox<ProxyState>, applied: Latch
    ) {
        self.peer = peer
        self.index = index
        self.rule = rule
        self.decision = decision
        self.state = state
        self.applied = applied
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !stopped else { return }
        var buffer = unwrapInboundIn(data)
        if decision.withLockedValue({ $0 }) == true, forwarded + buffer.readableBytes >= rule.afterBytes {
            buffer = buffer.readSlice(length: rule.afterBytes - forwarded) ?? ByteBuffer()
            stopped = true
        }
        countBody(buffer)
        forwarded += buffer.readableBytes
        let write = peer.writeAndFlush(buffer)
        if stopped { write.whenComplete { [applied] _ in applied.open() } }
        if stopped, case .cut = rule.fault {
            let (peer, channel) = (peer, context.channel)
            write.whenComplete { _ in
                peer.close(promise: nil)
                channel.close(promise: nil)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A stalled answer stays stalled when the server finishes sending the rest and closes:
        // passing the close on would turn the stall into a cut.
        if stopped, case .stall = rule.fault { return }
        peer.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

    /// Counts the answer's body bytes (those after the head's blank line).
    private func countBody(_ buffer: ByteBuffer) {
        if headEnded {
            state.withLockedValue { $0.connections[index].bodyBytesForwarded += buffer.readableBytes }
            return
        }
        headSeen += buffer.readableBytesView
        let blankLine: [UInt8] = [13, 10, 13, 10]
        guard headSeen.count >= 4 else { return }
        for start in 0...(headSeen.count - 4) where Array(headSeen[start..<start + 4]) == blankLine {
            headEnded = true
            let body = headSeen.count - (start + 4)
            state.withLockedValue { $0.connections[index].bodyBytesForwarded += body }
            return
        }
    }
}
