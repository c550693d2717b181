import AsyncHTTPClient
import Foundation
import MetaRouterDelivery
import NIOSSL

/// Where ``TransportSecurity`` becomes ``HTTPDeliveryTransport``'s configuration: swift-nio-ssl's
/// `TLSConfiguration` and AsyncHTTPClient's proxy setting.
extension TransportSecurity {
    /// swift-nio-ssl's client configuration for these settings, with every file read now.
    /// - Throws: ``DeliveryConfigurationError`` naming the file's setting (``Setting``).
    func makeTLSConfiguration() throws(DeliveryConfigurationError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch trust {
        case .systemRoots:
            break
        case .only(let file):
            tls.trustRoots = .certificates(try Self.certificates(file, setting: Setting.caFile, what: "CA certificate"))
        case .systemRootsAnd(let file):
            tls.additionalTrustRoots = [
                .certificates(try Self.certificates(file, setting: Setting.caFile, what: "CA certificate"))
            ]
        }
        if let client = clientCertificate {
            let chain = try Self.certificates(
                client.certificateFile, setting: Setting.clientCertificateFile, what: "client certificate")
            tls.certificateChain = chain.map { .certificate($0) }
            tls.privateKey = .privateKey(try Self.privateKey(client.privateKeyFile))
        }
        return tls
    }

    /// AsyncHTTPClient's proxy setting for ``proxy``.
    var asyncHTTPClientProxy: HTTPClient.Configuration.Proxy? {
        guard let proxy else { return nil }
        let authorization = proxy.credentials.map {
            HTTPClient.Authorization.basic(username: $0.username, password: $0.password)
        }
        return .server(host: proxy.host, port: proxy.port, authorization: authorization)
    }

    /// The certificates of PEM file `path` (at least one).
    private static func certificates(
        _ path: String, setting: String, what: String
    ) throws(DeliveryConfigurationError) -> [NIOSSLCertificate] {
        try TransportSecurity.readable(path, setting: setting)
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw .init(setting: setting, "\(path) holds no readable PEM \(what) (-----BEGIN CERTIFICATE-----): \(error)")
        }
        guard !certificates.isEmpty else {
            throw .init(setting: setting, "\(path) holds no readable PEM \(what) (-----BEGIN CERTIFICATE-----)")
        }
        return certificates
    }

    /// The private key of PEM file `path`.
    private static func privateKey(_ path: String) throws(DeliveryConfigurationError) -> NIOSSLPrivateKey {
        try TransportSecurity.readable(path, setting: Setting.clientPrivateKeyFile)
        do {
            return try NIOSSLPrivateKey(file: path, format: .pem)
        } catch {
            throw .init(
                setting: Setting.clientPrivateKeyFile,
                "\(path) is not an unencrypted PEM private key (\(error))")
        }
    }
}
