import Crypto
import Foundation
import SwiftASN1
import X509

/// Certificates made at run time for the TLS tests (swift-certificates and swift-crypto, P-256),
/// written as PEM files into a directory: a test CA, a server certificate it signs for
/// `localhost` and `127.0.0.1`, a client certificate it signs, and a second CA that signed
/// neither (for "not trusted").
package struct TLSTestPKI {
    /// The test CA's certificate.
    package let caFile: String
    /// Another CA, unrelated to every certificate here.
    package let otherCAFile: String
    /// The server certificate (signed by the test CA) and its key.
    package let serverCertFile: String
    package let serverKeyFile: String
    /// A client certificate (signed by the test CA) and its key.
    package let clientCertFile: String
    package let clientKeyFile: String

    /// Makes the certificates and writes them into `dir`.
    package init(dir: String) throws {
        let now = Date()
        let ca = try Self.authority(name: "mr-replay test CA", now: now)
        let other = try Self.authority(name: "some other CA", now: now)
        let serverKey = P256.Signing.PrivateKey()
        let server = try Self.leaf(
            name: "localhost", key: serverKey, issuer: ca, now: now, usage: .serverAuth,
            names: [.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
        let clientKey = P256.Signing.PrivateKey()
        let client = try Self.leaf(name: "mr-replay test client", key: clientKey, issuer: ca, now: now, usage: .clientAuth, names: [])
        caFile = try Self.write(ca.certificate, dir + "/ca.pem")
        otherCAFile = try Self.write(other.certificate, dir + "/other-ca.pem")
        serverCertFile = try Self.write(server, dir + "/server.pem")
        serverKeyFile = dir + "/server.key"
        try serverKey.pemRepresentation.write(toFile: serverKeyFile, atomically: true, encoding: .utf8)
        clientCertFile = try Self.write(client, dir + "/client.pem")
        clientKeyFile = dir + "/client.key"
        try clientKey.pemRepresentation.write(toFile: clientKeyFile, atomically: true, encoding: .utf8)
    }

    private struct Authority {
        let name: DistinguishedName
        let key: P256.Signing.PrivateKey
        let certificate: Certificate
    }

    /// A self-signed CA valid from an hour ago for a day.
    private static func authority(name: String, now: Date) throws -> Authority {
        let key = P256.Signing.PrivateKey()
        let dn = try DistinguishedName { CommonName(name) }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86400, issuer: dn, subject: dn,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(key))
        return Authority(name: dn, key: key, certificate: certificate)
    }

    /// A certificate for `key`, signed by `issuer`, for `usage`, with these subject alternative names.
    private static func leaf(
        name: String, key: P256.Signing.PrivateKey, issuer: Authority, now: Date,
        usage: ExtendedKeyUsage.Usage, names: [GeneralName]
    ) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86400,
            issuer: issuer.name, subject: try DistinguishedName { CommonName(name) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([usage])
                if !names.isEmpty { SubjectAlternativeNames(names) }
            },
            issuerPrivateKey: .init(issuer.key))
    }

    /// Writes `certificate` as PEM to `path` and returns the path.
    private static func write(_ certificate: Certificate, _ path: String) throws -> String {
        try certificate.serializeAsPEM().pemString.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
