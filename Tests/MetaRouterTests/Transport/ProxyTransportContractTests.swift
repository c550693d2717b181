import Collector
import Foundation
import MetaRouter
import NIOCore
import NIOPosix
import ServerTesting
import TestSupport
import Testing

@testable import MetaRouterDelivery

/// The proxy part of the transport contract, run against both transports and a local proxy
/// (``TestHTTPProxy``): a plain `http` request is forwarded naming the whole URL, an `https` one
/// goes through a `CONNECT` tunnel with TLS end to end, both carry the proxy's Basic
/// credentials, and a proxy that refuses them is a network error (retried), not a TLS failure.
@Suite(.serialized) final class ProxyTransportContractTests {
    let dir: String
    let pki: TLSTestPKI
    init() throws {
        dir = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        pki = try TLSTestPKI(dir: dir)
    }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    static let credentials = HTTPProxy.Credentials(username: "me", password: "pr0xy s3cret")
    static let authorization = "Basic " + Data("me:pr0xy s3cret".utf8).base64EncodedString()

    /// Sends two batches through `proxy` (with `credentials`) to a collector, over TLS when `tls`;
    /// returns the answers and how many events arrived.
    private func send(
        _ kind: TransportKind, tls: Bool, proxy: TestHTTPProxy, credentials: HTTPProxy.Credentials?
    ) async throws -> ([DeliveryResponse], Int) {
        var configuration = CollectorConfiguration(writeKey: "proxy-key")
        if tls { configuration.tls = CollectorTLS(certificateFile: pki.serverCertFile, privateKeyFile: pki.serverKeyFile) }
        let server = CollectorServer(configuration: configuration)
        return try await withRunningServer(server) { running in
            let url = "\(tls ? "https" : "http")://127.0.0.1:\(running.port)/v1/batch"
            var security = TransportSecurity(trust: tls ? .only(caFile: pki.caFile) : .systemRoots)
            security.proxy = HTTPProxy(host: "127.0.0.1", port: proxy.port, credentials: credentials)
            let transport = kind.make(maxConnectionsPerHost: 2, security: security)
            var answers: [DeliveryResponse] = []
            for id in ["m1", "m2"] {
                let body = #"{"batch":[{"type":"track","event":"e","anonymousId":"a","messageId":"\#(id)","timestamp":"2024-01-01T00:00:00Z"}]}"#
                let request = DeliveryRequest(
                    url: url,
                    headers: [("Authorization", "Basic " + Data("proxy-key:".utf8).base64EncodedString()), ("Content-Type", "application/json")],
                    body: Array(body.utf8), timeout: .seconds(30))
                answers.append(await transport.send(request))
            }
            await transport.shutdown()
            return (answers, server.stats().events)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func plainRequestsAreForwardedWithTheProxysCredentials(kind: TransportKind) async throws {
        let proxy = try TestHTTPProxy(requiredAuthorization: Self.authorization)
        defer { proxy.stop() }
        let (answers, events) = try await send(kind, tls: false, proxy: proxy, credentials: Self.credentials)
        for answer in answers { guard case .status(200, _) = answer else { Issue.record("got \(answer)"); return } }
        #expect(events == 2)
        #expect(proxy.proxyAuthorizations.first == Self.authorization)
        // The lean transport forwards, as curl does; AsyncHTTPClient opens a tunnel for plain HTTP too.
        if kind == .lean {
            #expect(proxy.forwardedRequests.first?.hasPrefix("POST http://127.0.0.1:") == true, "\(proxy.forwardedRequests)")
            #expect(proxy.connectTargets.isEmpty)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func httpsGoesThroughATunnelWithTheProxysCredentials(kind: TransportKind) async throws {
        let proxy = try TestHTTPProxy(requiredAuthorization: Self.authorization)
        defer { proxy.stop() }
        let (answers, events) = try await send(kind, tls: true, proxy: proxy, credentials: Self.credentials)
        for answer in answers { guard case .status(200, _) = answer else { Issue.record("got \(answer)"); return } }
        #expect(events == 2)
        #expect(proxy.forwardedRequests.isEmpty)
        #expect(proxy.connectTargets.count == 1, "one tunnel, kept alive: \(proxy.connectTargets)")
        #expect(proxy.connectTargets.first?.hasPrefix("127.0.0.1:") == true)
        #expect(proxy.proxyAuthorizations == [Self.authorization])
    }

    @Test func aProxyRefusingTheTunnelIsANetworkErrorNamingIt() async throws {
        let proxy = try TestHTTPProxy(requiredAuthorization: Self.authorization)
        defer { proxy.stop() }
        let (answers, events) = try await send(.lean, tls: true, proxy: proxy, credentials: nil)
        guard case .networkError(let why) = answers[0] else { Issue.record("got \(answers[0])"); return }
        #expect(why.contains("407"), "\(why)")
        #expect(why.contains("through the proxy http://127.0.0.1:\(proxy.port)"), "\(why)")
        #expect(events == 0)
    }

    @Test func theTunnelRequestNamesTheEndpointAndCarriesCredentials() {
        let promise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self)
        let asking = ProxyTunnelHandler(
            authority: "ingest.example.com:443", proxy: HTTPProxy(host: "p", port: 3128, credentials: Self.credentials),
            established: promise)
        #expect(
            asking.request
                == "CONNECT ingest.example.com:443 HTTP/1.1\r\nHost: ingest.example.com:443\r\nProxy-Authorization: \(Self.authorization)\r\n\r\n")
        promise.succeed()
    }
}
