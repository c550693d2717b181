import NIOCore
import NIOPosix
import Synchronization

/// The HTTP transport a ``MetaRouterClient`` owns when the caller passes none: a
/// ``LeanHTTPTransport`` with the endpoint's TLS and proxy settings, made on the first request (so creating a client starts nothing, not even the default group's threads)
/// on the caller's event loop group, or on `MultiThreadedEventLoopGroup.singleton`, and shut down
/// at the end of ``MetaRouterClient/run()``.
final class OwnedHTTPTransport: DeliveryTransport {
    private enum State {
        case idle
        case started(LeanHTTPTransport)
        case shutDown
    }

    private let state = Mutex(State.idle)
    private let eventLoopGroup: (any EventLoopGroup)?
    private let maxConnectionsPerHost: Int
    private let security: TransportSecurity

    /// A transport that will use `eventLoopGroup`, or the singleton group when nil (never shut
    /// down here), with the TLS and proxy settings of `security`.
    init(
        eventLoopGroup: (any EventLoopGroup)?, maxConnectionsPerHost: Int,
        security: TransportSecurity = TransportSecurity()
    ) {
        self.eventLoopGroup = eventLoopGroup
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.security = security
    }

    /// Sends through the chosen transport, making it first if needed; a network error once shut down.
    func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        let transport = state.withLock { s -> LeanHTTPTransport? in
            switch s {
            case .idle:
                let made = LeanHTTPTransport(
                    eventLoopGroup: eventLoopGroup ?? MultiThreadedEventLoopGroup.singleton,
                    maxConnectionsPerHost: maxConnectionsPerHost, security: security)
                s = .started(made)
                return made
            case .started(let t): return t
            case .shutDown: return nil
            }
        }
        guard let transport else { return .networkError("the client's HTTP transport is shut down") }
        return await transport.send(request)
    }

    /// Shuts the transport down if one was made; later requests fail as network errors.
    func shutdown() async {
        let started = state.withLock { s -> LeanHTTPTransport? in
            defer { s = .shutDown }
            if case .started(let t) = s { return t }
            return nil
        }
        await started?.shutdown()
    }
}
