import AsyncHTTPClient
import Logging
import NIOCore

/// The real transport: AsyncHTTPClient with a keep-alive connection pool; HTTPS works.
///
/// Call ``shutdown()`` once when done.
public final class HTTPDeliveryTransport: DeliveryTransport {
    private let client: HTTPClient

    /// Creates a transport with its own client; `maxConnectionsPerHost` should be at least the engine's concurrency.
    public init(maxConnectionsPerHost: Int = 8, connectTimeout: Duration = .seconds(10)) {
        var config = HTTPClient.Configuration()
        config.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: maxConnectionsPerHost)
        config.timeout.connect = .nanoseconds(Int64(connectTimeout.seconds * 1e9))
        config.decompression = .disabled
        config.redirectConfiguration = .disallow
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
    }

    /// POSTs the request and drains the response body (at most 1 MiB is read).
    public func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        var r = HTTPClientRequest(url: request.url)
        r.method = .POST
        for h in request.headers { r.headers.add(name: h.name, value: h.value) }
        r.body = .bytes(ByteBuffer(bytes: request.body))
        do {
            let response = try await client.execute(r, timeout: .nanoseconds(Int64(request.timeout.seconds * 1e9)))
            let headers = response.headers.map { ($0.name, $0.value) }
            _ = try? await response.body.collect(upTo: 1 << 20)
            return .status(Int(response.status.code), headers: headers)
        } catch {
            return .networkError(String(describing: error))
        }
    }

    /// Closes the connection pool.
    public func shutdown() async {
        try? await client.shutdown()
    }
}
