import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL

/// HTTPS for the collector: its certificate and key, and optionally the CA that client
/// certificates must chain to (mutual TLS). Served through Hummingbird's TLS support
/// (swift-nio-ssl).
public struct CollectorTLS: Sendable, Equatable {
    /// PEM file with the server certificate first, followed by any intermediate certificates.
    public var certificateFile: String
    /// PEM file with the certificate's private key (not encrypted).
    public var privateKeyFile: String
    /// PEM file of CA certificates: when set, every client must present a certificate that
    /// chains to one of them, or the handshake fails.
    public var clientCAFile: String?

    /// Creates TLS settings from PEM files.
    public init(certificateFile: String, privateKeyFile: String, clientCAFile: String? = nil) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.clientCAFile = clientCAFile
    }

    /// swift-nio-ssl's server configuration, with every file read now.
    /// - Throws: ``CollectorTLSError`` naming the file that cannot be used.
    func serverConfiguration() throws(CollectorTLSError) -> TLSConfiguration {
        let chain = try Self.load(certificateFile, "certificate") { try NIOSSLCertificate.fromPEMFile($0) }
        guard !chain.isEmpty else { throw CollectorTLSError(message: "\(certificateFile) holds no PEM certificate") }
        let key = try Self.load(privateKeyFile, "private key") { try NIOSSLPrivateKey(file: $0, format: .pem) }
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        if let clientCAFile {
            let roots = try Self.load(clientCAFile, "CA certificate") { try NIOSSLCertificate.fromPEMFile($0) }
            guard !roots.isEmpty else { throw CollectorTLSError(message: "\(clientCAFile) holds no PEM certificate") }
            tls.trustRoots = .certificates(roots)
            // Verify the client's chain (a client has no host name to check); with verification
            // on, a server refuses clients that present no certificate.
            tls.certificateVerification = .noHostnameVerification
        }
        do {
            _ = try NIOSSLContext(configuration: tls)
        } catch {
            throw CollectorTLSError(message: "\(privateKeyFile) is not the private key of \(certificateFile) (\(error))")
        }
        return tls
    }

    /// Hummingbird's HTTP/1 server over TLS with these settings.
    func serverBuilder() throws(CollectorTLSError) -> HTTPServerBuilder {
        let tls = try serverConfiguration()
        do {
            return try .tls(.http1(), tlsConfiguration: tls)
        } catch {
            throw CollectorTLSError(message: "cannot serve TLS: \(error)")
        }
    }

    /// `read(path)`, with a missing or unusable file reported as a ``CollectorTLSError``.
    private static func load<T>(_ path: String, _ what: String, _ read: (String) throws -> T) throws(CollectorTLSError) -> T {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CollectorTLSError(message: "cannot read the TLS \(what) file \(path)")
        }
        do {
            return try read(path)
        } catch {
            throw CollectorTLSError(message: "\(path) is not a PEM \(what) (\(error))")
        }
    }
}

/// A TLS file of ``CollectorTLS`` that cannot be used; the server does not start.
public struct CollectorTLSError: Error, Sendable, CustomStringConvertible {
    /// Which file and what is wrong with it.
    public let message: String

    /// The message.
    public var description: String { message }
}

extension CollectorConfiguration {
    /// `https` when ``tls`` is set, `http` otherwise.
    public var scheme: String { tls == nil ? "http" : "https" }

    /// The Hummingbird server for these settings: HTTP/1, over TLS when ``tls`` is set.
    func serverBuilder() throws(CollectorTLSError) -> HTTPServerBuilder {
        try tls?.serverBuilder() ?? .http1()
    }
}
