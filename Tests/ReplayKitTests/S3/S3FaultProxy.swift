import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy in front of moto for the S3 tests. The first connection whose request is a GET
/// of the whole object (`GET <path>` with no `Range`) is faulted once `afterBytes` bytes of its
/// answer went through: cut (both sides closed) or stalled (nothing more forwarded). With
/// `refuseReopens`, every later GET of that path is closed as soon as it arrives, so reopening
/// fails. Everything else is forwarded. It records what clients send (the `Range` requests).
final class S3FaultProxy: Sendable {
    enum Fault: Sendable {
        case cut
        case stall
    }

    struct State {
        var requests: [String] = []
        var faulted = false
    }

    let port: Int
    /// Opens when the fault takes effect: `afterBytes` went through, then the cut or the stall.
    let applied: Latch
    private let channel: any Channel
    private let state: NIOLockedValueBox<State>

    private init(port: Int, applied: Latch, channel: any Channel, state: NIOLockedValueBox<State>) {
        self.port = port
        self.applied = applied
        self.channel = channel
        self.state = state
    }

    /// `http://127.0.0.1:PORT`.
    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// What clients sent on each connection, in order.
    var requests: [String] { state.withLockedValue { $0.requests } }

    /// Whether the fault happened.
    var faulted: Bool { state.withLockedValue { $0.faulted } }

    /// A proxy to `upstream` (`http://127.0.0.1:PORT`) that faults the GET of `path` (`/bucket/key`).
    static func start(
        upstream: String, path: String, fault: Fault, afterBytes: Int, refuseReopens: Bool = false
    ) async throws -> S3FaultProxy {
        let upstreamPort = Int(upstream.split(separator: ":").last ?? "") ?? 0
        let state = NIOLockedValueBox(State())
        let applied = Latch()
        let rule = FaultRule(requestLine: "GET \(path) ", fault: fault, afterBytes: afterBytes, refuseReopens: refuseReopens)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                let index = state.withLockedValue {
                    $0.requests.append(""); return $0.count - 1
                }
                let decision = NIOLockedValueBox<Bool?>(nil)  // whether this connection is the faulted one
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandler(
                                AnswerRelay(peer: inbound, rule: rule, decision: decision, applied: applied))
                        }
                    }
                    .connect(host: "127.0.0.1", port: upstreamPort)
                    .flatMapThrowing { outbound in
                        try inbound.pipeline.syncOperations.addHandler(
                            RequestRelay(peer: outbound, index: index, rule: rule, state: state, decision: decision))
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return S3FaultProxy(port: channel.localAddress?.port ?? 0, applied: applied, channel: channel, state: state)
    }

    func stop() async throws { try await channel.close() }
}

/// Which request is faulted, and how.
struct FaultRule: Sendable {
    var requestLine: String
    var fault: S3FaultProxy.Fault
    var afterBytes: Int
    var refuseReopens: Bool
}

extension S3FaultProxy.State {
    var count: Int { requests.count }
}

/// Client to server: recorded, and forwarded, unless it is a reopen to refuse.
private final class RequestRelay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let peer: any Channel
    private let index: Int
    private let rule: FaultRule
    private let state: NIOLockedValueBox<S3FaultProxy.State>
    private let decision: NIOLockedValueBox<Bool?>

    init(
        peer: any Channel, index: Int, rule: FaultRule, state: NIOLockedValueBox<S3FaultProxy.State>,
        decision: NIOLockedValueBox<Bool?>
    ) {
        self.peer = peer
        self.index = index
        self.rule = rule
        self.state = state
        self.decision = decision
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? ""
        let matches = text.hasPrefix(rule.requestLine)
        let whole = matches && !text.lowercased().contains("\r\nrange:")
        let refuse = state.withLockedValue { s -> Bool in
            s.requests[index] += text
            if whole, !s.faulted, decision.withLockedValue({ $0 }) == nil {
                s.faulted = true
                decision.withLockedValue { $0 = true }
                return false
            }
            return matches && s.faulted && rule.refuseReopens && decision.withLockedValue({ $0 }) != true
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

/// Server to client: forwarded; on the faulted connection, cut or stalled after `afterBytes`.
private final class AnswerRelay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let peer: any Channel
    private let rule: FaultRule
    private let decision: NIOLockedValueBox<Bool?>
    private let applied: Latch
    private var forwarded = 0
    private var stopped = false

    init(peer: any Channel, rule: FaultRule, decision: NIOLockedValueBox<Bool?>, applied: Latch) {
        self.peer = peer
        self.rule = rule
        self.decision = decision
        self.applied = applied
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !stopped else { return }
        var buffer = unwrapInboundIn(data)
        if decision.withLockedValue({ $0 }) == true, forwarded + buffer.readableBytes >= rule.afterBytes {
            buffer = buffer.readSlice(length: rule.afterBytes - forwarded) ?? ByteBuffer()
            stopped = true
        }
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
        if stopped, case .stall = rule.fault { return }  // a stalled client hears nothing, not even the close
        peer.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
}
