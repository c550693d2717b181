import Foundation
import NIOCore
import NIOEmbedded
import NIOTLS
import Synchronization
import SystemTLS

/// What reaches the end of a pipeline: plaintext, TLS events, errors, and whether it closed.
final class Recorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    var text = ""
    var handshakes = 0
    var errors: [any Error] = []
    var inactive = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        text += String(buffer: unwrapInboundIn(data))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .handshakeCompleted? = event as? TLSUserEvent { handshakes += 1 }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { errors.append(error) }

    func channelInactive(context: ChannelHandlerContext) { inactive = true }

    /// The kind of the first TLS error, if any.
    var tlsFailure: TLSConnectionError.Kind? { errors.compactMap { $0 as? TLSConnectionError }.first?.kind }
}

/// Counts the reads asked of the socket (put first in the pipeline, before TLS).
final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    var reads = 0

    func read(context: ChannelHandlerContext) {
        reads += 1
        context.read()
    }
}

/// Asks for the next read while it handles each read, as a handler with `autoRead` off does to
/// keep reading.
final class AsksAgain: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.read()
        context.fireChannelRead(data)
    }
}

/// A TLS client and server on two embedded channels, whose bytes ``shuttle()`` carries across.
struct TLSPair {
    let client = EmbeddedChannel()
    let server = EmbeddedChannel()
    let clientEnd = Recorder()
    let serverEnd = Recorder()

    /// Connects both channels with TLS handlers from `client` and `server` contexts (the client
    /// expecting a certificate for `host`) and runs the handshake as far as it goes.
    init(client clientContext: TLSContext, server serverContext: TLSContext, host: String = "localhost") throws {
        try client.pipeline.syncOperations.addHandler(TLSHandler(client: clientContext, host: host))
        try client.pipeline.syncOperations.addHandler(clientEnd)
        try server.pipeline.syncOperations.addHandler(TLSHandler(server: serverContext))
        try server.pipeline.syncOperations.addHandler(serverEnd)
        try server.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try client.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2)).wait()
        try shuttle()
    }

    /// Carries every byte each side wrote to the other until neither writes more.
    func shuttle() throws {
        while true {
            var moved = false
            while let bytes = try client.readOutbound(as: ByteBuffer.self) {
                moved = true
                if server.isActive { try server.writeInbound(bytes) }
            }
            while let bytes = try server.readOutbound(as: ByteBuffer.self) {
                moved = true
                if client.isActive { try client.writeInbound(bytes) }
            }
            if !moved { return }
        }
    }

    /// Writes `text` as plaintext on `channel` and flushes.
    static func send(_ text: String, on channel: EmbeddedChannel) {
        channel.writeAndFlush(ByteBuffer(string: text), promise: nil)
    }
}

/// A write's promise, and whether it has completed.
final class Completion: Sendable {
    let promise: EventLoopPromise<Void>
    private let completed = Mutex(false)

    init(_ loop: any EventLoop) {
        promise = loop.makePromise()
        promise.futureResult.whenComplete { [self] _ in completed.withLock { $0 = true } }
    }

    var done: Bool { completed.withLock { $0 } }
}
