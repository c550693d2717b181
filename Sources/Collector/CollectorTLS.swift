import Foundation
import SystemTLS

/// HTTPS for the collector: its certificate and key, and optionally the CA that client
/// certificates must chain to (mutual TLS). Served by SystemTLS (the system's OpenSSL) in front of
/// the collector's HTTP/1.1 handler.
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

    /// The server TLS context for these settings, with every file read now.
    /// - Throws: ``CollectorTLSError`` naming the file that cannot be used.
    func serverContext() throws(CollectorTLSError) -> TLSContext {
        for (path, what) in [(certificateFile, "certificate"), (privateKeyFile, "private key")]
            + (clientCAFile.map { [($0, "CA certificate")] } ?? [])
        where !FileManager.default.isReadableFile(atPath: path) {
            throw CollectorTLSError(message: "cannot read the TLS \(what) file \(path)")
        }
        do {
            return try TLSContext.server(certificateFile: certificateFile, privateKeyFile: privateKeyFile, clientCAFile: clientCAFile)
        } catch {
            switch error.role {
            case .certificate: throw CollectorTLSError(message: "\(certificateFile) holds no PEM certificate (\(error.reason))")
            case .privateKey: throw CollectorTLSError(message: "\(privateKeyFile) is not a PEM private key (\(error.reason))")
            case .keyMismatch:
                throw CollectorTLSError(message: "\(privateKeyFile) is not the private key of \(certificateFile) (\(error.reason))")
            case .caFile: throw CollectorTLSError(message: "\(clientCAFile ?? "?") holds no PEM certificate (\(error.reason))")
            case .context: throw CollectorTLSError(message: "cannot serve TLS: \(error.reason)")
            }
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
}
