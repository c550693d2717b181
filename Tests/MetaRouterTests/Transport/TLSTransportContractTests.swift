import Collector
import Foundation
import MetaRouter
import NIOPosix
import ServerTesting
import TestSupport
import Testing

/// The TLS part of the transport contract (TransportContractTests has the rest), run against both transports and a local HTTPS collector whose certificates are
/// made at test time (``TLSTestPKI``): trusting the test CA through `ca_file` delivers; a CA
/// nobody trusts, and a mutual-TLS server refusing a client without a certificate, answer
/// `.tlsFailure` (which stops the engine) rather than a network error it would retry.
@Suite(.serialized) final class TLSTransportContractTests {
    let dir: String
    let pki: TLSTestPKI
    init() throws {
        dir = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        pki = try TLSTestPKI(dir: dir)
    }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// Sends one batch with `security` to an HTTPS collector (requiring a client certificate from
    /// the test CA when `mutual`) at `host`, and returns the answer and how many events arrived.
    private func send(
        _ kind: TransportKind, _ security: TransportSecurity, mutual: Bool = false,
        host: String = "127.0.0.1"
    ) async throws -> (DeliveryResponse, Int) {
        var configuration = CollectorConfiguration(writeKey: "tls-key")
        configuration.tls = CollectorTLS(
            certificateFile: pki.serverCertFile, privateKeyFile: pki.serverKeyFile, clientCAFile: mutual ? pki.caFile : nil)
        let server = CollectorServer(configuration: configuration)
        return try await withRunningServer(server) { running in
            let url = "https://\(host):\(running.port)/v1/batch"
            let transport = kind.make(maxConnectionsPerHost: 2, security: security)
            let body = #"{"batch":[{"type":"track","event":"e","anonymousId":"a","messageId":"m1","timestamp":"2024-01-01T00:00:00Z"}]}"#
            let request = DeliveryRequest(
                url: url,
                headers: [
                    ("Authorization", "Basic " + Data("tls-key:".utf8).base64EncodedString()),
                    ("Content-Type", "application/json"),
                ],
                // What is checked is trust, not speed: a loaded CI machine needs more than a few seconds for a handshake.
                body: Array(body.utf8), timeout: .seconds(30))
            let response = await transport.send(request)
            await transport.shutdown()
            return (response, server.stats().events)
        }
    }

    @Test(arguments: TransportKind.allCases, ["127.0.0.1", "localhost"])
    func trustingTheTestCADelivers(kind: TransportKind, host: String) async throws {
        let (response, events) = try await send(kind, TransportSecurity(trust: .only(caFile: pki.caFile)), host: host)
        guard case .status(200, _) = response else { Issue.record("got \(response)"); return }
        #expect(events == 1)
    }

    @Test(arguments: TransportKind.allCases)
    func anUntrustedCAIsATLSFailure(kind: TransportKind) async throws {
        for security in [TransportSecurity(), TransportSecurity(trust: .only(caFile: pki.otherCAFile))] {
            let (response, events) = try await send(kind, security)
            guard case .tlsFailure(let why) = response else { Issue.record("\(security.trust): got \(response)"); continue }
            #expect(why.contains("not trusted"), "\(why)")
            #expect(events == 0)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func mutualTLSIsRefusedWithoutAClientCertificateAndAcceptedWithOne(kind: TransportKind) async throws {
        var security = TransportSecurity(trust: .only(caFile: pki.caFile))
        let (without, none) = try await send(kind, security, mutual: true)
        guard case .tlsFailure(let why) = without else { Issue.record("without a certificate: \(without)"); return }
        #expect(why.contains("refused the TLS handshake"), "\(why)")
        #expect(none == 0)
        security.clientCertificate = .init(certificateFile: pki.clientCertFile, privateKeyFile: pki.clientKeyFile)
        let (with, one) = try await send(kind, security, mutual: true)
        guard case .status(200, _) = with else { Issue.record("with a certificate: \(with)"); return }
        #expect(one == 1)
    }

    /// Files that cannot be used answer `.tlsFailure` naming the problem, without connecting.
    @Test(arguments: TransportKind.allCases)
    func unusableTLSFilesAreATLSFailure(kind: TransportKind) async throws {
        let (response, events) = try await send(kind, TransportSecurity(trust: .only(caFile: dir + "/missing.pem")))
        guard case .tlsFailure(let why) = response else { Issue.record("got \(response)"); return }
        #expect(why.contains("missing.pem"), "\(why)")
        #expect(events == 0)
    }
}
