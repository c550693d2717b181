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
    /// The transport for a run sending to `host`: the lean one for a plain `http://` host reached
    /// without a proxy, on one event loop of `MultiThreadedEventLoopGroup.singleton` (one thread
    /// for every lane's connection); otherwise `fallback()` (AsyncHTTPClient: HTTPS, proxies).
    package static func selected(
        host: String, proxied: Bool = false, maxConnectionsPerHost: Int,
        fallback: () -> HTTPDeliveryTransport
    ) -> any ClosableDeliveryTransport {
        guard !proxied, canSend(to: host) else { return fallback() }
        return LeanHTTPTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton.next(),
                                 maxConnectionsPerHost: maxConnectionsPerHost)
    }
}
