import Foundation
import GzipCodec
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import NIOCore
import NIOPosix
import Testing

/// Both transports against the scripted loopback server, beyond the contract's single
/// requests: answers of any size are drained on a kept connection, a transport on the caller's
/// group leaves it running, and an engine sends gzip bodies through them.
@Suite(.serialized) struct HTTPTransportTests {
    private func request(_ port: Int) -> DeliveryRequest {
        DeliveryRequest(
            url: "http://127.0.0.1:\(port)/base/v1/batch", headers: [], body: Array(#"{"batch":[]}"#.utf8), timeout: .seconds(30))
    }

    /// A transport on the caller's event loop group leaves the group running at shutdown, so
    /// other transports (and the rest of the process) keep using it.
    @Test(arguments: TransportKind.allCases)
    func aTransportOnTheSharedGroupLeavesItRunning(kind: TransportKind) async throws {
        let server = try await ScriptedHTTPServer.start { _ in .status(200) }
        for _ in 0..<2 {
            let transport = kind.make(maxConnectionsPerHost: 2)
            let response = await transport.send(request(server.port))
            await transport.shutdown()
            guard case .status(200, _) = response else { Issue.record("got \(response)"); break }
        }
        await server.stop()
        #expect(server.requests.count == 2)
    }

    /// The body of an answer is drained and dropped, whatever its size, and the connection is
    /// reused for the next request.
    @Test(arguments: TransportKind.allCases, [64 * 1024, 3 << 20])
    func responseBodiesAreDrained(kind: TransportKind, bytes: Int) async throws {
        let server = try await ScriptedHTTPServer.start { _ in .status(200, bodyBytes: bytes) }
        let transport = kind.make()
        let first = await transport.send(request(server.port))
        let second = await transport.send(request(server.port))
        await transport.shutdown()
        await server.stop()
        for response in [first, second] {
            guard case .status(200, _) = response else { Issue.record("\(bytes) bytes: got \(response)"); return }
        }
        #expect(server.requests.count == 2)
        #expect(server.connections == 1)
    }

    @Test(arguments: TransportKind.allCases)
    func engineOverHTTPWithGzip(kind: TransportKind) async throws {
        let server = try await ScriptedHTTPServer.start { _ in .status(200) }
        let transport = kind.make()
        var c = DeliveryConfiguration(host: "http://127.0.0.1:\(server.port)/base", writeKey: "wk")
        c.gzip = true
        #expect(throws: Never.self) { try c.validate() }
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: c, transport: transport, onOutcomes: sink.callback)
        async let _ = engine.run()
        for i in 0..<25 { _ = await engine.submit(testEvent("m\(i)", user: "u\(i % 4)")) }
        let stats = await engine.finish()
        await transport.shutdown()
        await server.stop()
        #expect(stats.eventsDelivered == 25)
        #expect(sink.all.count == 25)
        var ids: [String] = []
        for r in server.requests {
            #expect(r.head.uri == "/base/v1/batch")
            #expect(r.head.headers.first(name: "content-encoding") == "gzip")
            #expect(r.head.headers.first(name: "authorization") == "Basic " + Data("wk:".utf8).base64EncodedString())
            let root = try JSONValue(parsing: GzipCodec.decompress(r.body)).objectValue
            #expect(root?["sentAt"]?.stringValue != nil)
            for e in root?["batch"]?.arrayValue ?? [] {
                #expect(e.objectValue?["writeKey"]?.stringValue == "wk")
                ids.append(e.objectValue?["messageId"]?.stringValue ?? "?")
            }
        }
        #expect(Set(ids) == Set((0..<25).map { "m\($0)" }))
    }
}
