import NIOCore

/// The HTTP transport for one endpoint, chosen by what the endpoint needs: ``LeanHTTPTransport``
/// for an `http://` or `https://` host reached directly, ``HTTPDeliveryTransport``
/// (AsyncHTTPClient) through an HTTP proxy (see `docs/delivery.md`, "Two transports").
///
/// The case says what the transport can do: a lean one takes each body as the buffer the engine
/// wrote it into, and a ``DeliveryEngine`` made with it uses that. Both run on the caller's event
/// loop group and leave it running when they shut down.
public enum HTTPTransport: DeliveryTransport {
    /// SwiftNIO's HTTP/1.1 codec on keep-alive connections, one per engine lane.
    case lean(LeanHTTPTransport)
    /// AsyncHTTPClient, for HTTP proxies (plain requests and `CONNECT` tunnels).
    case asyncHTTPClient(HTTPDeliveryTransport)

    /// The transport for `host` with `security`'s TLS and proxy settings, on `eventLoopGroup`:
    /// lean for an `http://` or `https://` host without a proxy, AsyncHTTPClient otherwise. Give
    /// one `EventLoop` to keep every connection on one thread (and run the engine there too).
    /// It starts nothing: connections open on the first request.
    public init(
        host: String, security: TransportSecurity = TransportSecurity(), maxConnectionsPerHost: Int,
        eventLoopGroup: any EventLoopGroup
    ) {
        if security.proxy == nil, LeanHTTPTransport.canSend(to: host) {
            self = .lean(
                LeanHTTPTransport(
                    eventLoopGroup: eventLoopGroup, maxConnectionsPerHost: maxConnectionsPerHost,
                    security: security))
        } else {
            self = .asyncHTTPClient(
                HTTPDeliveryTransport(
                    eventLoopGroup: eventLoopGroup,
                    maxConnectionsPerHost: maxConnectionsPerHost, security: security))
        }
    }

    /// Sends `request` through the chosen transport.
    public func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        switch self {
        case .lean(let t): await t.send(request)
        case .asyncHTTPClient(let t): await t.send(request)
        }
    }

    /// The one event loop every connection runs on: a lean transport's, when it was given one
    /// `EventLoop`. An engine given it as its event loop sends and settles without a thread hop.
    public var eventLoop: (any EventLoop)? {
        if case .lean(let t) = self { return t.homeEventLoop }
        return nil
    }

    /// Closes the transport's connections; the event loop group keeps running.
    public func shutdown() async {
        switch self {
        case .lean(let t): await t.shutdown()
        case .asyncHTTPClient(let t): await t.shutdown()
        }
    }
}
