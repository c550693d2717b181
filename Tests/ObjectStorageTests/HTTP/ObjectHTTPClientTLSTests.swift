import Foundation
import ObjectStorage
import SystemTLS
import TestSupport
import Testing

/// HTTPS through ``SystemTLS`` against a local server with certificates made for the test.
@Suite struct ObjectHTTPClientTLSTests {
    /// The test CA, its server certificate (for `localhost` and `127.0.0.1`), and a TLS server.
    struct Fixture {
        let dir: String
        let pki: TLSTestPKI
        let server: LocalHTTPServer

        init(respond: @escaping @Sendable (LocalHTTPServer.Request) -> LocalHTTPServer.Answer) async throws {
            dir = try makeTempDir()
            pki = try TLSTestPKI(dir: dir)
            let context = try TLSContext.server(certificateFile: pki.serverCertFile, privateKeyFile: pki.serverKeyFile)
            server = try await LocalHTTPServer.start(tls: context, respond: respond)
        }

        func stop() async {
            await server.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    /// A body over HTTPS, by name (SNI) and by address; requests to one host share a connection.
    @Test func bodiesArriveOverHTTPSAndConnectionsAreKept() async throws {
        let fixture = try await Fixture { _ in .body(bytes: 300_000) }
        let client = makeTestClient(caFile: fixture.pki.caFile)
        for host in ["localhost", "127.0.0.1", "localhost"] {
            let response = try await client.execute(testRequest(fixture.server, scheme: "https", host: host), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 20)
            #expect(body.readableBytes == 300_000 && holdsBodyBytes(body, from: 0))
        }
        #expect(fixture.server.seen.connections == 2)
        await client.shutdown()
        await fixture.stop()
    }

    /// A certificate from a CA the client does not trust fails the handshake, naming the host.
    @Test func anUntrustedCertificateIsATLSFailure() async throws {
        let fixture = try await Fixture { _ in .body(bytes: 10) }
        let client = makeTestClient(caFile: fixture.pki.otherCAFile)
        await #expect {
            _ = try await client.execute(testRequest(fixture.server, scheme: "https", host: "localhost"), timeout: .seconds(60))
        } throws: {
            isHTTPError($0, .tls, saying: "cannot connect to localhost:\(fixture.server.port): TLS failed during the handshake")
        }
        await client.shutdown()
        await fixture.stop()
    }

    /// A CA file that cannot be read is a TLS failure naming it.
    @Test func anUnreadableCAFileIsATLSFailure() async throws {
        let fixture = try await Fixture { _ in .body(bytes: 10) }
        let client = makeTestClient(caFile: "/nonexistent/ca.pem")
        await #expect {
            _ = try await client.execute(testRequest(fixture.server, scheme: "https", host: "localhost"), timeout: .seconds(60))
        } throws: {
            isHTTPError($0, .tls, saying: "cannot set up TLS with the system's CA certificates or /nonexistent/ca.pem")
        }
        await client.shutdown()
        await fixture.stop()
    }
}
