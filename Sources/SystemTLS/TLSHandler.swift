import NIOCore
import NIOTLS

/// TLS for a SwiftNIO channel on the system's OpenSSL: put it first in the pipeline (nearest the
/// socket); the handlers after it read and write plaintext `ByteBuffer`s.
///
/// A client starts its handshake when the channel is active; a server answers the client's.
/// Writes made before the handshake ends wait for it. When it ends, the handler fires
/// `TLSUserEvent.handshakeCompleted` (as swift-nio-ssl's handlers do). A failed handshake, a
/// record that cannot be read, or an alert from the peer fires a ``TLSConnectionError`` through
/// `errorCaught` and closes the channel; a `close_notify` from the peer closes it. Closing the
/// channel sends this side's `close_notify` first, without waiting for the peer's.
///
/// With `autoRead` off, the handshake reads what it needs by itself, and a read asked for by a
/// later handler that brings only part of a record asks the socket for more, so each read asked
/// for yields plaintext or the end.
package final class TLSHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private enum State {
        case waiting, handshaking, open, closed
    }

    private let tlsContext: TLSContext
    private let host: String?
    private var session: TLSSession?
    private var state = State.waiting
    /// Plaintext written before the handshake ended.
    private var pending: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    private var flushPending = false
    /// A later handler asked for a read that no plaintext has answered yet.
    private var readAsked = false

    /// A client handler for a server at `host`: a name is sent as SNI and must be on the server's
    /// certificate; an IP address is not sent, and the certificate must carry it.
    package init(client context: TLSContext, host: String) {
        precondition(!context.isServer, "a client handler needs a client context")
        tlsContext = context
        self.host = host
    }

    /// A server handler, presenting the context's certificate.
    package init(server context: TLSContext) {
        precondition(context.isServer, "a server handler needs a server context")
        tlsContext = context
        host = nil
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { begin(context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        failPending(ChannelError.ioOnClosedChannel)
        session = nil
    }

    package func channelActive(context: ChannelHandlerContext) {
        begin(context)
        context.fireChannelActive()
    }

    /// Makes the session and, for a client, sends its first handshake message.
    private func begin(_ context: ChannelHandlerContext) {
        guard state == .waiting else { return }
        do {
            session = try TLSSession(context: tlsContext, host: host)
        } catch {
            return fail(context, error)
        }
        state = .handshaking
        if tlsContext.isServer {
            context.read()  // the client's first handshake message, also with autoRead off
        } else {
            advanceHandshake(context)
        }
    }

    private func advanceHandshake(_ context: ChannelHandlerContext) {
        guard let session else { return }
        let step = session.handshake()
        sendOutput(context, flush: true)
        switch step {
        case .done:
            state = .open
            writePending(context)  // before the event, so what was written first goes first
            context.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: nil))
            deliverPlaintext(context)  // application data that came with the last handshake message
        case .wantsInput:
            context.read()  // the peer's next handshake message, also with autoRead off
        case .closed:
            fail(context, TLSConnectionError(.failed, "the peer closed the connection during the TLS handshake"))
        case .failed(let error):
            fail(context, error)
        }
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let session, state == .handshaking || state == .open else { return }
        session.receive(unwrapInboundIn(data))
        if state == .handshaking { advanceHandshake(context) } else { deliverPlaintext(context) }
    }

    /// Passes on every byte of plaintext that the ciphertext received so far holds.
    private func deliverPlaintext(_ context: ChannelHandlerContext) {
        while state == .open, let session {
            var plaintext = context.channel.allocator.buffer(capacity: 0)
            let step = session.read(into: &plaintext)
            if plaintext.readableBytes > 0 {
                readAsked = false  // answered; a read asked for while handling it sets it again
                context.fireChannelRead(wrapInboundOut(plaintext))
            }
            switch step {
            case nil: continue
            case .wantsInput?, .done?: sendOutput(context, flush: true)
            case .closed?:
                session.shutdown()  // this side's close_notify, in answer to the peer's
                sendOutput(context, flush: true)
                state = .closed
                context.close(promise: nil)
            case .failed(let error)?:
                sendOutput(context, flush: true)  // the alert, if OpenSSL made one
                fail(context, error)
            }
            return
        }
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        if readAsked, state == .handshaking || state == .open {
            context.read()  // part of a record, or a ticket: the read asked for has nothing to show yet
        }
        context.fireChannelReadComplete()
    }

    package func read(context: ChannelHandlerContext) {
        readAsked = true
        context.read()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        if state == .handshaking {
            context.fireErrorCaught(TLSConnectionError(.failed, "the connection closed during the TLS handshake"))
        }
        state = .closed
        failPending(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        writePlaintext(context, unwrapOutboundIn(data), promise: promise)
    }

    /// Encrypts and writes `plaintext`, or keeps it until the handshake ends.
    private func writePlaintext(_ context: ChannelHandlerContext, _ plaintext: ByteBuffer, promise: EventLoopPromise<Void>?) {
        switch state {
        case .waiting, .handshaking:
            pending.append((plaintext, promise))
        case .closed:
            promise?.fail(ChannelError.ioOnClosedChannel)
        case .open:
            if let error = session?.write(plaintext) {
                promise?.fail(error)
                return fail(context, error)
            }
            // An empty write (NIO's HTTP encoder makes one for `.end`) still goes down, so its
            // promise completes after the writes before it, as the caller expects.
            let ciphertext = session?.takeOutput(allocator: context.channel.allocator) ?? context.channel.allocator.buffer(capacity: 0)
            context.write(wrapOutboundOut(ciphertext), promise: promise)
        }
    }

    package func flush(context: ChannelHandlerContext) {
        if state == .open { context.flush() } else { flushPending = true }
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .all, state == .open, let session {
            session.shutdown()
            sendOutput(context, flush: true)
        }
        if mode == .all { state = .closed }
        context.close(mode: mode, promise: promise)
    }

    /// Writes what was written before the handshake ended, flushing if a flush was asked for.
    private func writePending(_ context: ChannelHandlerContext) {
        let waiting = pending
        pending = []
        for (plaintext, promise) in waiting { writePlaintext(context, plaintext, promise: promise) }
        if flushPending {
            flushPending = false
            context.flush()
        }
    }

    /// Writes whatever ciphertext OpenSSL has made (handshake messages, alerts, `close_notify`).
    private func sendOutput(_ context: ChannelHandlerContext, flush: Bool) {
        guard let session, let ciphertext = session.takeOutput(allocator: context.channel.allocator) else { return }
        context.write(wrapOutboundOut(ciphertext), promise: nil)
        if flush { context.flush() }
    }

    /// Ends the connection with `error`: pending writes fail, later handlers see the error.
    private func fail(_ context: ChannelHandlerContext, _ error: any Error) {
        guard state != .closed else { return }
        state = .closed
        failPending(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func failPending(_ error: any Error) {
        let waiting = pending
        pending = []
        for (_, promise) in waiting { promise?.fail(error) }
    }
}
