import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The lean transport for plain `http://` endpoints: a SwiftNIO HTTP/1.1 client pipeline (NIO's
/// `HTTPRequestEncoder` and `HTTPResponseDecoder`) over long-lived keep-alive connections, one
/// request in flight per connection, so each engine lane keeps one connection.
///
/// Per request it looks up the endpoint's prepared head (parsed and built once per URL and header
/// list), copies the body once into a `ByteBuffer` and hands it to the connection's event loop;
/// the answer comes back through one promise. A connection that closes, resets or fails is
/// dropped and the next request opens a new one. It starts nothing in `init`: connections open on
/// the first request, on the caller's `eventLoopGroup` (pass one `EventLoop` to keep every
/// connection on one thread). ``shutdown()`` (or the end of ``run()``) closes them; the group is
/// left running. HTTPS and proxies go through ``HTTPDeliveryTransport``.
public final class LeanHTTPTransport: DeliveryTransport, Service {
    private struct State {
        /// Idle keep-alive connections by endpoint authority.
        var idle: [String: [any Channel]] = [:]
        /// Every open connection, for shutdown.
        var open: [ObjectIdentifier: any Channel] = [:]
        /// Prepared heads by URL.
        var heads: [String: LeanHeadCache] = [:]
        var shutDown = false
    }

    private enum Checkout {
        case idle(any Channel)
        case connect
        case shutDown
    }

    private let group: any EventLoopGroup
    private let maxIdlePerHost: Int
    private let connectTimeout: TimeAmount
    private let state = NIOLockedValueBox(State())

    /// A transport whose connections run on `eventLoopGroup`, which ``shutdown()`` leaves running.
    /// At most `maxConnectionsPerHost` idle connections are kept per endpoint (it should be at
    /// least the engine's concurrency); `connectTimeout` bounds opening a connection (and so does
    /// the request's own timeout).
    public init(eventLoopGroup: any EventLoopGroup, maxConnectionsPerHost: Int = 8, connectTimeout: Duration = .seconds(10)) {
        group = eventLoopGroup
        maxIdlePerHost = max(1, maxConnectionsPerHost)
        self.connectTimeout = TimeAmount(connectTimeout)
    }

    /// Whether this transport can send to `url` (a plain `http://` URL with a host).
    public static func canSend(to url: String) -> Bool { LeanHTTPEndpoint(url: url) != nil }

    /// POSTs the request on a keep-alive connection and returns the status and headers (the body
    /// of the answer is drained). Timeouts, resets and cancellation of the calling task end it as
    /// ``DeliveryResponse/networkError(_:)``.
    public func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        let deadline = NIODeadline.now() + TimeAmount(request.timeout)
        guard let (endpoint, head) = prepare(request) else {
            return .networkError("the lean HTTP transport sends to plain http:// URLs only, not \(request.url)")
        }
        let channel: any Channel
        switch checkout(endpoint.authority) {
        case .shutDown:
            return .networkError("the HTTP transport is shut down")
        case .idle(let idle):
            channel = idle
        case .connect:
            do {
                channel = try await connect(endpoint, deadline: deadline)
            } catch {
                return .networkError("cannot connect to \(endpoint.authority): \(error)")
            }
        }
        var body = channel.allocator.buffer(capacity: request.body.count)
        body.writeBytes(request.body)
        let answer = await exchange(LeanHTTPExchange(head: head, body: body, deadline: deadline,
                                                      promise: channel.eventLoop.makePromise()), on: channel)
        checkin(channel, authority: endpoint.authority, reusable: answer.reusable)
        return answer.response
    }

    /// Writes `exchange` to `channel` and waits for its answer; cancelling the task abandons it.
    private func exchange(_ exchange: LeanHTTPExchange, on channel: any Channel) async -> LeanHTTPAnswer {
        let promise = exchange.promise
        return await withTaskCancellationHandler {
            channel.writeAndFlush(exchange).whenFailure { error in
                promise.succeed(LeanHTTPAnswer(response: .networkError("cannot send the request: \(error)"), reusable: false))
            }
            // Cancelled before the handler was installed: the exchange is in the pipeline now.
            if Task.isCancelled { channel.triggerUserOutboundEvent(LeanHTTPCancel(), promise: nil) }
            do {
                return try await promise.futureResult.get()
            } catch {
                return LeanHTTPAnswer(response: .networkError(String(describing: error)), reusable: false)
            }
        } onCancel: {
            channel.triggerUserOutboundEvent(LeanHTTPCancel(), promise: nil)
        }
    }

    /// The endpoint and request head for `request`; nil when its URL is not plain HTTP.
    private func prepare(_ request: DeliveryRequest) -> (LeanHTTPEndpoint, HTTPRequestHead)? {
        state.withLockedValue { s in
            if s.heads[request.url] == nil {
                guard let endpoint = LeanHTTPEndpoint(url: request.url) else { return nil }
                if s.heads.count >= 16 { s.heads.removeAll() }
                s.heads[request.url] = LeanHeadCache(endpoint: endpoint)
            }
            let head = s.heads[request.url]!.head(headers: request.headers, length: request.body.count)
            return (s.heads[request.url]!.endpoint, head)
        }
    }

    /// An idle live connection to `authority`, or whether to open one.
    private func checkout(_ authority: String) -> Checkout {
        state.withLockedValue { s in
            if s.shutDown { return .shutDown }
            while let channel = s.idle[authority]?.popLast() {
                if channel.isActive { return .idle(channel) }
            }
            return .connect
        }
    }

    /// Keeps `channel` for the next request, or closes it.
    private func checkin(_ channel: any Channel, authority: String, reusable: Bool) {
        let keep = reusable && channel.isActive && state.withLockedValue { s in
            guard !s.shutDown, s.idle[authority, default: []].count < maxIdlePerHost else { return false }
            s.idle[authority, default: []].append(channel)
            return true
        }
        if !keep { channel.close(promise: nil) }
    }

    /// Opens a connection to `endpoint` with the HTTP/1.1 pipeline.
    private func connect(_ endpoint: LeanHTTPEndpoint, deadline: NIODeadline) async throws -> any Channel {
        var encoding = HTTPRequestEncoder.Configuration()
        encoding.automaticallySetFramingHeaders = false  // the head carries Content-Length
        let channel = try await ClientBootstrap(group: group)
            .connectTimeout(min(connectTimeout, max(deadline - .now(), .milliseconds(1))))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHTTPClientHandlers(encoderConfiguration: encoding)
                    try pipeline.addHandler(LeanHTTPConnectionHandler())
                }
            }
            .connect(host: endpoint.host, port: endpoint.port).get()
        let id = ObjectIdentifier(channel)
        let admitted = state.withLockedValue { s in
            if !s.shutDown { s.open[id] = channel }
            return !s.shutDown
        }
        guard admitted else {
            try? await channel.close()
            throw ShutDownError()
        }
        channel.closeFuture.whenComplete { [state] _ in
            state.withLockedValue { s in
                s.open[id] = nil
                s.idle[endpoint.authority]?.removeAll { $0 === channel }
            }
        }
        return channel
    }

    private struct ShutDownError: Error, CustomStringConvertible {
        var description: String { "the HTTP transport is shut down" }
    }

    /// Closes every connection; later requests fail as network errors. The event loop group keeps running.
    public func shutdown() async {
        let channels = state.withLockedValue { s in
            s.shutDown = true
            s.idle = [:]
            return Array(s.open.values)
        }
        for channel in channels { try? await channel.close() }
    }

    /// Runs until graceful shutdown (or cancellation), then closes every connection.
    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }
}
