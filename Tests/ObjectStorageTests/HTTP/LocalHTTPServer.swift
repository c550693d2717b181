import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SystemTLS

/// A bare HTTP/1.1 server on a loopback port for the HTTP client's tests (HTTPS with a server
/// ``TLSContext``): it reads each request's head and `Content-Length` body and answers as
/// `respond` says, writing bodies only as fast as the socket takes them. It counts connections
/// made and closed, records requests, and counts the body bytes the kernel accepted.
final class LocalHTTPServer: Sendable {
    /// How a request is answered.
    enum Answer: Sendable {
        /// A head with `headers` and `Content-Length: bytes` (unless `headers` has one), then
        /// `bytes` bytes of ``LocalHTTPServer/byte(at:)``, then `after`.
        case body(status: Int = 200, headers: [String] = [], bytes: Int, after: After = .keepOpen)
        /// A head with `Content-Length: length` and no body (the answer to a HEAD).
        case headOnly(length: Int)
        /// These bytes, as they are.
        case raw(String)
        /// Nothing: the connection stays open, and no later request on it is answered.
        case silence
    }

    /// What follows an answer's body.
    enum After: Sendable {
        /// The connection stays open for the next request.
        case keepOpen
        /// The connection is closed.
        case close
        /// Nothing more is sent, and nothing more is answered.
        case stall
    }

    /// A request as it arrived.
    struct Request: Sendable {
        /// The request line and the headers, CRLFs included.
        var head: String
        /// The body.
        var body: [UInt8]
        /// The connection it came on (0 for the first).
        var connection: Int

        /// The value of header `name` (any case), if present.
        func header(_ name: String) -> String? {
            for line in head.split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    /// What the server saw.
    struct Record: Sendable {
        var connections = 0
        var closedConnections = 0
        var requests: [Request] = []
        var bodyBytesSent = 0
        /// How often a body stopped being written because the connection was not writable
        /// (backpressure from the client).
        var heldBack = 0
    }

    /// The port it listens on.
    let port: Int
    private let channel: any Channel
    private let record: ServerRecord

    private init(port: Int, channel: any Channel, record: ServerRecord) {
        self.port = port
        self.channel = channel
        self.record = record
    }

    /// Byte `offset` of every answer body: `offset % 251`, so a misplaced chunk shows.
    static func byte(at offset: Int) -> UInt8 { UInt8(offset % 251) }

    /// Starts a server answering as `respond` says, over TLS with `tls` when given.
    static func start(tls: TLSContext? = nil, respond: @escaping @Sendable (Request) -> Answer) async throws -> LocalHTTPServer {
        let record = ServerRecord()
        let channel = try await ServerBootstrap(group: httpTestLoops)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                let index = record.update { record in
                    record.connections += 1
                    return record.connections - 1
                }
                return child.eventLoop.makeCompletedFuture {
                    if let tls { try child.pipeline.syncOperations.addHandler(TLSHandler(server: tls)) }
                    try child.pipeline.syncOperations.addHandler(ServerConnection(index: index, record: record, respond: respond))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return LocalHTTPServer(port: channel.localAddress?.port ?? 0, channel: channel, record: record)
    }

    /// What it saw so far.
    var seen: Record { record.update { $0 } }

    /// Waits until `condition` holds for what it saw, woken by each change (at most 60 s, then
    /// false, so a broken test fails instead of hanging); returns whether it held. Generous: it
    /// returns as soon as the condition holds, and in one run of the full suite on 2 cores, tests
    /// that take milliseconds alone took 26 s at the start: a 10 s limit failed there.
    func waitUntil(_ condition: @escaping @Sendable (Record) -> Bool) async throws -> Bool {
        await record.wait(until: condition)
    }

    /// Stops listening (connections stay until their clients close them).
    func stop() async { try? await channel.close() }
}

/// One connection of a ``LocalHTTPServer``.
private final class ServerConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// 64 KiB of the body pattern from any phase (`pattern[k...]` starts at byte k of the cycle).
    private static let pattern: [UInt8] = (0..<(65_536 + 251)).map { LocalHTTPServer.byte(at: $0) }

    private let index: Int
    private let record: ServerRecord
    private let respond: @Sendable (LocalHTTPServer.Request) -> LocalHTTPServer.Answer
    private var received: [UInt8] = []
    /// The body being written: bytes left, the next offset, and what follows it.
    private var sending: (remaining: Int, offset: Int, after: LocalHTTPServer.After)?
    /// Whether no more requests are answered.
    private var mute = false
    /// Whether ``pump(_:)`` is running (it is not entered again).
    private var pumping = false

    init(
        index: Int, record: ServerRecord,
        respond: @escaping @Sendable (LocalHTTPServer.Request) -> LocalHTTPServer.Answer
    ) {
        self.index = index
        self.record = record
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytesView
        answerWhatArrived(context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        pump(context)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        record.update { $0.closedConnections += 1 }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

    /// Answers every complete request received, in order, while no body is being written.
    private func answerWhatArrived(_ context: ChannelHandlerContext) {
        while sending == nil, !mute, let request = takeRequest() {
            record.update { $0.requests.append(request) }
            answer(respond(request), context)
        }
    }

    /// The first complete request of `received`, removed from it.
    private func takeRequest() -> LocalHTTPServer.Request? {
        let end = Array("\r\n\r\n".utf8)
        guard let headEnd = (0...max(0, received.count - 4)).first(where: { received[$0..<min($0 + 4, received.count)].elementsEqual(end) })
        else { return nil }
        var request = LocalHTTPServer.Request(head: String(decoding: received[..<headEnd], as: UTF8.self), body: [], connection: index)
        let length = request.header("Content-Length").flatMap { Int($0) } ?? 0
        guard received.count >= headEnd + 4 + length else { return nil }
        request.body = Array(received[(headEnd + 4)..<(headEnd + 4 + length)])
        received.removeFirst(headEnd + 4 + length)
        return request
    }

    private func answer(_ answer: LocalHTTPServer.Answer, _ context: ChannelHandlerContext) {
        switch answer {
        case .body(let status, let headers, let bytes, let after):
            var head = "HTTP/1.1 \(status) Whatever\r\n" + headers.map { "\($0)\r\n" }.joined()
            if !headers.contains(where: { $0.lowercased().hasPrefix("content-length:") }) { head += "Content-Length: \(bytes)\r\n" }
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: head + "\r\n")), promise: nil)
            sending = (bytes, 0, after)
            pump(context)
        case .headOnly(let length):
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n")), promise: nil)
        case .raw(let text):
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
        case .silence:
            mute = true
        }
    }

    /// Writes the body being sent while the socket takes it; then does what follows it.
    /// A write can change the channel's writability, which calls ``pump(_:)`` again from inside it.
    private func pump(_ context: ChannelHandlerContext) {
        guard !pumping else { return }
        pumping = true
        while let body = sending, body.remaining > 0, context.channel.isWritable {
            let count = min(65_536, body.remaining)
            let phase = body.offset % 251
            sending = (body.remaining - count, body.offset + count, body.after)
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: Self.pattern[phase..<(phase + count)]))).whenSuccess { [record] in
                record.update { $0.bodyBytesSent += count }
            }
        }
        pumping = false
        if let body = sending, body.remaining > 0 { record.update { $0.heldBack += 1 } }
        guard let body = sending, body.remaining == 0 else { return }
        sending = nil
        switch body.after {
        case .keepOpen: answerWhatArrived(context)
        case .close: context.close(promise: nil)
        case .stall: mute = true
        }
    }
}

/// What a ``LocalHTTPServer`` saw, and the tests waiting for it to reach a state: each change
/// wakes the waiters whose condition now holds.
private final class ServerRecord: Sendable {
    private struct State {
        var record = LocalHTTPServer.Record()
        var waiters: [(id: Int, condition: @Sendable (LocalHTTPServer.Record) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Changes the record with `body` (which may also just read it), then wakes the waiters it satisfies.
    @discardableResult
    func update<T>(_ body: (inout LocalHTTPServer.Record) -> T) -> T {
        let (result, ready) = state.withLockedValue { state in
            let result = body(&state.record)
            let record = state.record
            let ready = state.waiters.filter { $0.condition(record) }.map(\.continuation)
            state.waiters.removeAll { $0.condition(record) }
            return (result, ready)
        }
        for continuation in ready { continuation.resume(returning: true) }
        return result
    }

    /// Returns true once `condition` holds, or false after 60 s without it.
    func wait(until condition: @escaping @Sendable (LocalHTTPServer.Record) -> Bool) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = state.withLockedValue { state -> Int? in
                if condition(state.record) { return nil }
                state.nextID += 1
                state.waiters.append((state.nextID, condition, continuation))
                return state.nextID
            }
            guard let id else { return continuation.resume(returning: true) }
            httpTestLoops.next().scheduleTask(in: .seconds(60)) { [state] in
                let late = state.withLockedValue { state -> CheckedContinuation<Bool, Never>? in
                    guard let i = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: i).continuation
                }
                late?.resume(returning: false)
            }
        }
    }
}
