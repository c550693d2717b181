// A stand-in for the engine's TransportSecurity in the fuzz build, compiled into the
// MetaRouterDelivery module there: the real one turns into swift-nio-ssl and AsyncHTTPClient
// configuration, which the fuzz build does not compile. ReplayKit's config only holds a value of
// it; no fuzzed path reads it.

/// TLS trust, client certificate and proxy of the transport (stand-in: no settings).
public struct TransportSecurity: Sendable {
    /// No settings.
    public init() {}
}
