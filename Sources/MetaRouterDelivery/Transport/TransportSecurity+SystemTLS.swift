import Foundation
import SystemTLS

/// The one place where ``TransportSecurity`` becomes a TLS context on the system's OpenSSL
/// (``LeanHTTPTransport``'s, and what ``TransportSecurity/check()`` tries).
extension TransportSecurity {
    /// The client TLS context for these settings, with every file read now: the trust, and the
    /// client certificate with its key (which must belong to it).
    /// - Throws: ``DeliveryConfigurationError`` naming the file's setting (``Setting``).
    package func makeTLSContext() throws(DeliveryConfigurationError) -> TLSContext {
        if let caFile = trust.caFile { try Self.readable(caFile, setting: Setting.caFile) }
        if let client = clientCertificate {
            try Self.readable(client.certificateFile, setting: Setting.clientCertificateFile)
            try Self.readable(client.privateKeyFile, setting: Setting.clientPrivateKeyFile)
        }
        let systemRoots: Bool
        if case .only = trust { systemRoots = false } else { systemRoots = true }
        do {
            return try TLSContext.client(
                systemRoots: systemRoots, caFile: trust.caFile,
                certificateFile: clientCertificate?.certificateFile, privateKeyFile: clientCertificate?.privateKeyFile)
        } catch {
            throw explain(error)
        }
    }

    /// What a context that cannot be made means, naming the file by its setting.
    private func explain(_ error: TLSSetupError) -> DeliveryConfigurationError {
        let certificate = clientCertificate?.certificateFile ?? "?"
        let key = clientCertificate?.privateKeyFile ?? "?"
        switch error.role {
        case .caFile, .context:
            let file = trust.caFile ?? "the system's CA certificates"
            return .init(
                setting: Setting.caFile,
                "\(file) holds no readable PEM CA certificate (-----BEGIN CERTIFICATE-----): \(error.reason)")
        case .certificate:
            return .init(
                setting: Setting.clientCertificateFile,
                "\(certificate) holds no readable PEM client certificate (-----BEGIN CERTIFICATE-----): \(error.reason)")
        case .privateKey:
            return .init(setting: Setting.clientPrivateKeyFile, "\(key) is not an unencrypted PEM private key (\(error.reason))")
        case .keyMismatch:
            return .init(setting: Setting.clientPrivateKeyFile, "\(key) is not the private key of \(certificate) (\(error.reason))")
        }
    }

    /// Throws unless `path` is a readable file, naming `setting`.
    package static func readable(_ path: String, setting: String) throws(DeliveryConfigurationError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .init(setting: setting, "\(path) does not exist")
        }
        guard !isDirectory.boolValue, FileManager.default.isReadableFile(atPath: path) else {
            throw .init(setting: setting, "\(path) is not a readable file")
        }
    }
}
