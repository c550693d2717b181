import NIOCore
import NIOPosix

/// A delivery transport its owner shuts down once, when done with it.
package protocol ClosableDeliveryTransport: DeliveryTransport {
    /// Closes the transport's connections (and any threads it created).
    func shutdown() async
}

extension HTTPDeliveryTransport: ClosableDeliveryTransport {}
extension LeanHTTPTransport: ClosableDeliveryTransport {}

extension LeanHTTPTransport {
    /// The transport for a run sending to `host` with `security`: the lean one for an `http://`
    /// or `https://` host reached without a proxy, on one event loop of
    /// `MultiThreadedEventLoopGroup.singleton` (one thread for every lane's connection), with
    /// `security`'s TLS settings; otherwise `fallback()` (AsyncHTTPClient, for proxies).
    package static func selected(
        host: String, security: TransportSecurity = TransportSecurity(), maxConnectionsPerHost: Int,
        fallback: () -> HTTPDeliveryTransport
    ) -> any ClosableDeliveryTransport {
        guard security.proxy == nil, canSend(to: host) else { return fallback() }
        return LeanHTTPTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton.next(),
                                 maxConnectionsPerHost: maxConnectionsPerHost, security: security)
    }
}
