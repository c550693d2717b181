/// How a transport secures and routes its connections to the endpoint: which certificate
/// authorities a server certificate may chain to, the client certificate it presents (mutual
/// TLS), and the HTTP proxy it tunnels through.
///
/// A plain value, independent of the HTTP library: ``LeanHTTPTransport`` makes it a TLS context
/// on the system's OpenSSL on its first HTTPS request, and routes through the proxy itself.
/// ``check()`` reads every file at once and says which one is wrong, so a caller can refuse bad
/// settings before sending anything.
///
/// ```swift
/// var security = TransportSecurity()
/// security.trust = .only(caFile: "/etc/mr/ca.pem")
/// security.clientCertificate = .init(certificateFile: "/etc/mr/client.pem", privateKeyFile: "/etc/mr/client.key")
/// security.proxy = try HTTPProxy.resolve(for: "https://ingest.example.com", configured: nil, noProxy: nil,
///                                        environment: ProcessInfo.processInfo.environment)
/// try security.check()
/// let transport = LeanHTTPTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
///                                   maxConnectionsPerHost: 4, security: security)
/// ```
public struct TransportSecurity: Sendable, Equatable {
    /// Which certificate authorities a server's certificate may chain to.
    public enum Trust: Sendable, Equatable {
        /// The system's trusted roots (the default).
        case systemRoots
        /// Only the CA certificates in this PEM file (a private CA): the system's roots are not trusted.
        case only(caFile: String)
        /// The system's roots and the CA certificates in this PEM file.
        case systemRootsAnd(caFile: String)

        /// The PEM file of extra CA certificates, if any.
        public var caFile: String? {
            switch self {
            case .systemRoots: nil
            case .only(let file), .systemRootsAnd(let file): file
            }
        }
    }

    /// The certificate a client presents when the server asks for one (mutual TLS).
    public struct ClientCertificate: Sendable, Equatable {
        /// PEM file with the client certificate first, followed by any intermediate certificates.
        public var certificateFile: String
        /// PEM file with the certificate's private key (not encrypted).
        public var privateKeyFile: String

        /// Creates a client certificate from its two PEM files.
        public init(certificateFile: String, privateKeyFile: String) {
            self.certificateFile = certificateFile
            self.privateKeyFile = privateKeyFile
        }
    }

    /// Which certificate authorities are trusted.
    public var trust: Trust
    /// The client certificate for mutual TLS; `nil` presents none.
    public var clientCertificate: ClientCertificate?
    /// The HTTP proxy that requests go through (`CONNECT` for `https` endpoints); `nil` connects directly.
    public var proxy: HTTPProxy?

    /// Creates settings; the defaults trust the system's roots, present no client certificate
    /// and connect directly.
    public init(trust: Trust = .systemRoots, clientCertificate: ClientCertificate? = nil, proxy: HTTPProxy? = nil) {
        self.trust = trust
        self.clientCertificate = clientCertificate
        self.proxy = proxy
    }

    /// The names ``check()`` puts in ``DeliveryConfigurationError/setting``.
    public enum Setting {
        /// The PEM file of ``Trust``.
        public static let caFile = "trust.caFile"
        /// ``ClientCertificate/certificateFile``.
        public static let clientCertificateFile = "clientCertificate.certificateFile"
        /// ``ClientCertificate/privateKeyFile``.
        public static let clientPrivateKeyFile = "clientCertificate.privateKeyFile"
    }

    /// Reads every file now: a CA file or client certificate that cannot be read or holds no PEM
    /// certificate, a key that cannot be read, is not a PEM private key or does not belong to
    /// the certificate.
    /// - Throws: ``DeliveryConfigurationError`` whose `setting` is one of ``Setting``.
    public func check() throws(DeliveryConfigurationError) {
        guard trust != .systemRoots || clientCertificate != nil else { return }  // no file to read
        _ = try makeTLSContext()
    }
}
