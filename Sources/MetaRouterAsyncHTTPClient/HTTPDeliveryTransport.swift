import AsyncHTTPClient
import Logging
import MetaRouterDelivery
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A delivery transport on AsyncHTTPClient: a keep-alive connection pool; HTTPS (on
/// swift-nio-ssl) works, with the trust, client certificate and proxy of a ``TransportSecurity``.
/// For an app that already runs AsyncHTTPClient; ``LeanHTTPTransport`` does the same on the
/// system's OpenSSL with fewer copies, and is what mr-replay and ``MetaRouterClient`` use. Both
/// pass the same transport contract tests.
///
/// The connections run on the caller's event loop group (for example
/// `MultiThreadedEventLoopGroup.singleton`, which a server shares between its clients), which
/// ``shutdown()`` leaves running. Call ``shutdown()`` once when done.
///
/// A ``TransportSecurity`` whose files cannot be used (check them first with
/// ``TransportSecurity/check()``) makes every request answer ``DeliveryResponse/tlsFailure(_:)``
/// with the reason, which stops the engine.
public final class HTTPDeliveryTransport: DeliveryTransport {
    private let client: HTTPClient
    private let templates = NIOLockedValueBox<[String: HTTPClient.Request]>([:])
    /// Why the ``TransportSecurity`` could not be applied, if it could not.
    private let securityFailure: String?

    /// Creates a transport with its own client on the caller's `eventLoopGroup`;
    /// `maxConnectionsPerHost` should be at least the engine's concurrency.
    public init(
        eventLoopGroup: any EventLoopGroup, maxConnectionsPerHost: Int = 8, connectTimeout: Duration = .seconds(10),
        security: TransportSecurity = TransportSecurity()
    ) {
        var config = HTTPClient.Configuration()
        config.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: maxConnectionsPerHost)
        config.timeout.connect = .nanoseconds(Int64(connectTimeout.seconds * 1e9))
        config.decompression = .disabled
        config.redirectConfiguration = .disallow
        config.proxy = security.asyncHTTPClientProxy
        var failure: String?
        if security.trust != .systemRoots || security.clientCertificate != nil {
            do {
                config.tlsConfiguration = try security.makeTLSConfiguration()
            } catch {
                failure = "cannot use the TLS settings: \(error.message)"
            }
        }
        securityFailure = failure
        client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: config)
    }

    /// POSTs the request and drains the response body without keeping it. Cancelling the calling
    /// task cancels the request.
    public func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        if let securityFailure { return .tlsFailure(securityFailure) }
        do {
            var r = try template(for: request.url)
            r.headers.reserveCapacity(request.headers.count + 2)
            for h in request.headers { r.headers.add(name: h.name, value: h.value) }
            r.body = .bytes(request.body)
            let deadline = NIODeadline.now() + .nanoseconds(Int64(request.timeout.seconds * 1e9))
            let task = client.execute(request: r, delegate: StatusCollector(), deadline: deadline)
            return try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        } catch {
            if let refusal = BoringSSLRefusal.describe(error) { return .tlsFailure(refusal) }
            return .networkError(String(describing: error))
        }
    }

    /// A POST to `url` without headers or body; parsed once per URL (the engine sends every
    /// batch to the same one), not once per request.
    private func template(for url: String) throws -> HTTPClient.Request {
        if let cached = templates.withLockedValue({ $0[url] }) { return cached }
        let r = try HTTPClient.Request(url: url, method: .POST)
        templates.withLockedValue { if $0.count < 16 { $0[url] = r } }
        return r
    }

    /// Closes the connection pool; the event loop group keeps running.
    public func shutdown() async {
        try? await client.shutdown()
    }
}
