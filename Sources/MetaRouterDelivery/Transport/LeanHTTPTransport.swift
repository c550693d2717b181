import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle
import SystemTLS

/// The HTTP transport for `http://` and `https://` endpoints, reached directly or through an HTTP
/// proxy: HTTP/1.1 over long-lived keep-alive SwiftNIO connections, one request in flight per
/// connection, so each engine lane keeps one connection. Each connection has one HTTP handler
/// (``LeanHTTPConnectionHandler``, after SystemTLS's `TLSHandler` for HTTPS) that writes a
/// request's prepared head and its body with one `writev` and reads the answer with
/// ``HTTPResponseParser``: no HTTP encoder, decoder or header objects per request.
///
/// HTTPS uses the trust and client certificate of a ``TransportSecurity``, made into one TLS
/// context on the system's OpenSSL on the first HTTPS request and shared by every connection; the
/// server name (SNI, and the name the certificate must carry) is the URL's host, none for an IP
/// address (the certificate must then name the address). A certificate that is not trusted or
/// names another host, or a client certificate the server refuses, answers
/// ``DeliveryResponse/tlsFailure(_:)``, as do TLS settings whose files cannot be used.
///
/// With ``TransportSecurity/proxy`` set, an `https` endpoint is reached through a `CONNECT`
/// tunnel (TLS stays end to end), and a plain `http` request is sent to the proxy naming the
/// whole URL; both carry the proxy's Basic credentials when it has them.
///
/// Per request it looks up the endpoint's prepared head (its bytes built once per URL and header
/// list; the request adds its `Content-Length`) and hands the body's `ByteBuffer` to the connection;
/// the answer comes back through one promise. A connection that closes, resets or fails is
/// dropped and the next request opens a new one. It starts nothing in `init`: connections open on
/// the first request, on the caller's `eventLoopGroup` (pass one `EventLoop` to keep every
/// connection on one thread). ``shutdown()`` (or the end of ``run()``) closes them; the group is
/// left running.
public final class LeanHTTPTransport: BufferDeliveryTransport, Service {
    private struct State {
        /// Idle keep-alive connections by endpoint (`LeanHTTPEndpoint.key`).
        var idle: [String: [any Channel]] = [:]
        /// Every open connection, for shutdown.
        var open: [ObjectIdentifier: any Channel] = [:]
        /// Prepared heads by URL.
        var heads: [String: LeanHeadCache] = [:]
        /// The TLS context, or why it cannot be made; made on the first HTTPS request.
        var tls: Result<TLSContext, DeliveryConfigurationError>?
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
    private let security: TransportSecurity
    private let state = NIOLockedValueBox(State())

    /// A transport whose connections run on `eventLoopGroup`, which ``shutdown()`` leaves running.
    /// At most `maxConnectionsPerHost` idle connections are kept per endpoint (it should be at
    /// least the engine's concurrency); `connectTimeout` bounds opening a connection (and so does
    /// the request's own timeout). HTTPS connections trust and present what `security` says, and
    /// every connection goes through its proxy, if it has one.
    public init(
        eventLoopGroup: any EventLoopGroup, maxConnectionsPerHost: Int = 8, connectTimeout: Duration = .seconds(10),
        security: TransportSecurity = TransportSecurity()
    ) {
        group = eventLoopGroup
        self.security = security
        maxIdlePerHost = max(1, maxConnectionsPerHost)
        self.connectTimeout = TimeAmount(connectTimeout)
    }

    /// A transport for `host` (which no longer chooses among transports: this one sends to every
    /// `http://` and `https://` host, through a proxy or not).
    @available(
        *, deprecated, message: "the host does not choose the transport; use init(eventLoopGroup:maxConnectionsPerHost:connectTimeout:security:)"
    )
    public convenience init(
        host: String, security: TransportSecurity = TransportSecurity(), maxConnectionsPerHost: Int,
        eventLoopGroup: any EventLoopGroup
    ) {
        self.init(eventLoopGroup: eventLoopGroup, maxConnectionsPerHost: maxConnectionsPerHost, security: security)
    }

    /// The one event loop every connection runs on, when the transport was given one `EventLoop`.
    /// An engine given it as its event loop sends and settles without a thread hop.
    public var eventLoop: (any EventLoop)? { group as? any EventLoop }

    /// ``eventLoop``, as ``BufferDeliveryTransport`` names it.
    package var homeEventLoop: (any EventLoop)? { eventLoop }

    /// Allocates request bodies.
    package let allocator = ByteBufferAllocator()

    /// Whether this transport can send to `url` (an `http://` or `https://` URL with a host).
    public static func canSend(to url: String) -> Bool { LeanHTTPEndpoint(url: url) != nil }

    /// POSTs the request on a keep-alive connection and returns the status and headers (the body
    /// of the answer is drained). Timeouts, resets and cancellation of the calling task end it as
    /// ``DeliveryResponse/networkError(_:)``.
    public func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        var body = allocator.buffer(capacity: request.body.count)
        body.writeBytes(request.body)
        return await send(url: request.url, headers: request.headers, body: body, timeout: request.timeout, isolation: nil)
    }

    /// POSTs `body` to `url` like ``send(_:)``, running on `isolation`: on an actor whose executor
    /// is the connection's event loop, the request is written and its answer resumes the caller
    /// without a thread hop.
    package func send(
        url: String, headers: [(name: String, value: String)], body: ByteBuffer, timeout: Duration,
        isolation: isolated (any Actor)? = #isolation
    ) async -> DeliveryResponse {
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let endpoint: LeanHTTPEndpoint
        let head: LeanRequestHead
        switch prepare(url: url, headers: headers, length: body.readableBytes) {
        case .success(let prepared): (endpoint, head) = prepared
        case .failure(let error): return .networkError(error.message)
        }
        var tls: TLSContext?
        if endpoint.tls {
            switch tlsContext() {
            case .success(let context): tls = context
            case .failure(let error): return .tlsFailure("cannot use the TLS settings: \(error.message)")
            }
        }
        let channel: any Channel
        var fault: LeanConnectionFault?
        switch checkout(endpoint.key) {
        case .shutDown:
            return .networkError("the HTTP transport is shut down")
        case .idle(let idle):
            channel = idle
        case .connect:
            do {
                (channel, fault) = try await connect(endpoint, tls: tls, deadline: deadline)
            } catch {
                if let refusal = TLSRefusal.describe(error) { return .tlsFailure(refusal) }
                let via = endpoint.proxy.map { " through the proxy \($0)" } ?? ""
                return .networkError("cannot connect to \(endpoint.authority)\(via): \(error)")
            }
        }
        let answer = await exchange(
            LeanHTTPExchange(
                head: head, body: body, deadline: deadline,
                promise: channel.eventLoop.makePromise()), on: channel, fault: fault)
        checkin(channel, key: endpoint.key, reusable: answer.reusable)
        return answer.response
    }

    /// Writes `exchange` to `channel` and waits for its answer, on `isolation`; cancelling the task
    /// abandons it. A write to a connection that closed first answers what `fault` says closed it,
    /// if anything.
    private func exchange(
        _ exchange: LeanHTTPExchange, on channel: any Channel, fault: LeanConnectionFault?,
        isolation: isolated (any Actor)? = #isolation
    ) async -> LeanHTTPAnswer {
        let promise = exchange.promise
        return await withTaskCancellationHandler(
            operation: {
                channel.writeAndFlush(exchange).whenFailure { error in
                    let response = fault?.response ?? .networkError("cannot send the request: \(error)")
                    promise.succeed(LeanHTTPAnswer(response: response, reusable: false))
                }
                // Cancelled before the handler was installed: the exchange is in the pipeline now.
                if Task.isCancelled { channel.triggerUserOutboundEvent(LeanHTTPCancel(), promise: nil) }
                // The promise is only ever succeeded (failures are answers). Resuming here, rather
                // than through `EventLoopFuture.get()`, keeps the caller on its own executor.
                return await withCheckedContinuation(isolation: isolation) { continuation in
                    promise.futureResult.whenComplete { result in
                        switch result {
                        case .success(let answer): continuation.resume(returning: answer)
                        case .failure(let error):
                            continuation.resume(returning: LeanHTTPAnswer(response: .networkError(String(describing: error)), reusable: false))
                        }
                    }
                }
            },
            onCancel: {
                channel.triggerUserOutboundEvent(LeanHTTPCancel(), promise: nil)
            }, isolation: isolation)
    }

    /// The endpoint and request head for a request to `url` with `headers` and a body of `length`
    /// bytes, or why it cannot be sent.
    private func prepare(
        url: String, headers: [(name: String, value: String)],
        length: Int
    ) -> Result<(LeanHTTPEndpoint, LeanRequestHead), LeanRequestError> {
        state.withLockedValue { s in
            if s.heads[url] == nil {
                guard let endpoint = LeanHTTPEndpoint(url: url)?.routed(through: security.proxy) else {
                    return .failure(LeanRequestError("the HTTP transport sends to http:// and https:// URLs only, not \(url)"))
                }
                if s.heads.count >= 16 { s.heads.removeAll() }
                s.heads[url] = LeanHeadCache(endpoint: endpoint)
            }
            guard let head = s.heads[url]!.head(headers: headers, length: length) else {
                let bad = headers.first { !LeanHTTPEndpoint.isValidToSend(name: $0.name, value: $0.value) }?.name ?? "?"
                return .failure(
                    LeanRequestError(
                        "the header \"\(bad)\" cannot be sent (its name is not a token, or its value holds CR, LF or NUL)"))
            }
            return .success((s.heads[url]!.endpoint, head))
        }
    }

    /// Why a request cannot be sent at all.
    private struct LeanRequestError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// The TLS context for HTTPS connections, made from ``TransportSecurity`` once.
    private func tlsContext() -> Result<TLSContext, DeliveryConfigurationError> {
        state.withLockedValue { s in
            if let made = s.tls { return made }
            let made = Result { () throws(DeliveryConfigurationError) in try security.makeTLSContext() }
            s.tls = made
            return made
        }
    }

    /// An idle live connection to the endpoint with pool key `key`, or whether to open one.
    private func checkout(_ key: String) -> Checkout {
        state.withLockedValue { s in
            if s.shutDown { return .shutDown }
            while let channel = s.idle[key]?.popLast() {
                if channel.isActive { return .idle(channel) }
            }
            return .connect
        }
    }

    /// Keeps `channel` for the next request, or closes it.
    private func checkin(_ channel: any Channel, key: String, reusable: Bool) {
        let keep =
            reusable && channel.isActive
            && state.withLockedValue { s in
                guard !s.shutDown, s.idle[key, default: []].count < maxIdlePerHost else { return false }
                s.idle[key, default: []].append(channel)
                return true
            }
        if !keep { channel.close(promise: nil) }
    }

    /// Opens a connection to `endpoint` with the HTTP/1.1 pipeline, over TLS with `tls` when given
    /// (through the proxy's tunnel when it has one), and waits for the TLS handshake to succeed
    /// (by `deadline`). Also returns where the connection records a TLS refusal that arrives before
    /// the first request (TLS 1.3: a server refusing the client's certificate says so after the
    /// handshake).
    private func connect(
        _ endpoint: LeanHTTPEndpoint, tls: TLSContext?,
        deadline: NIODeadline
    ) async throws -> (any Channel, LeanConnectionFault) {
        let loop = group.next()
        let handshake = tls == nil ? nil : loop.makePromise(of: Void.self)
        let tunnel = endpoint.tunnels ? loop.makePromise(of: Void.self) : nil
        let fault = LeanConnectionFault()
        let handlers = LeanPipeline(endpoint: endpoint, tls: tls, handshake: handshake, fault: fault)
        let channel: any Channel
        do {
            channel = try await bootstrap(endpoint, on: loop, deadline: deadline) { channel in
                if let tunnel {
                    let asking = ProxyTunnelHandler(authority: endpoint.tunnelAuthority, proxy: endpoint.proxy!, established: tunnel)
                    try channel.pipeline.syncOperations.addHandler(asking)
                } else {
                    try handlers.add(to: channel)
                }
            }
        } catch {
            tunnel?.fail(error)
            handshake?.fail(error)
            throw error
        }
        do {
            try await admit(channel, endpoint: endpoint)
            if let tunnel {
                try await Self.wait(for: tunnel, on: channel, by: deadline)
                try await channel.eventLoop.submit { try handlers.add(to: channel) }.get()
            }
            // A refused handshake fails here (see `send`), not as a write to a closed connection.
            if let handshake { try await Self.wait(for: handshake, on: channel, by: deadline) }
        } catch {
            handshake?.fail(error)
            channel.close(promise: nil)
            throw error
        }
        return (channel, fault)
    }

    /// Waits for `promise`, failing it and closing `channel` if `deadline` passes first.
    private static func wait(for promise: EventLoopPromise<Void>, on channel: any Channel, by deadline: NIODeadline) async throws {
        let timer = channel.eventLoop.scheduleTask(deadline: deadline) {
            promise.fail(ChannelError.connectTimeout(.zero))
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        try await promise.futureResult.get()
    }

    /// Opens the TCP connection (to the proxy when there is one) on `loop`, with the handlers
    /// `initialize` adds.
    private func bootstrap(
        _ endpoint: LeanHTTPEndpoint, on loop: any EventLoop, deadline: NIODeadline,
        initialize: @escaping @Sendable (any Channel) throws -> Void
    ) async throws -> any Channel {
        try await ClientBootstrap(group: loop)
            .connectTimeout(min(connectTimeout, max(deadline - .now(), .milliseconds(1))))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try initialize(channel) } }
            .connect(host: endpoint.connectHost, port: endpoint.connectPort).get()
    }

    /// Records `channel` as open (closing it if the transport is shut down) until it closes.
    private func admit(_ channel: any Channel, endpoint: LeanHTTPEndpoint) async throws {
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
                s.idle[endpoint.key]?.removeAll { $0 === channel }
            }
        }
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
