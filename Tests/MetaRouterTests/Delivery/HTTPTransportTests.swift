import Foundation
import GzipCodec
import Hummingbird
import JSONCore
import Logging
@_spi(PerLine) import MetaRouter
import MetaRouterAsyncHTTPClient
import MetaRouterTesting
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// `HTTPDeliveryTransport` against a tiny in-process loopback server.
@Suite(.serialized) struct HTTPTransportTests {
    private struct Seen: Sendable {
        let path: String
        let authorization: String?
        let encoding: String?
        let body: [UInt8]
    }

    private final class SeenLog: Sendable {
        let state = Mutex<[Seen]>([])
        func withLock<T>(_ body: (inout [Seen]) -> T) -> T { state.withLock { body(&$0) } }
    }

    /// Starts a server answering `status` to `POST /base/v1/batch`; returns its port and a stop function.
    private func startServer(
        status: HTTPResponse.Status, headers: HTTPFields = [:], answerBytes: Int = 0,
        seen: SeenLog
    ) async throws -> (Int, Task<Void, any Error>) {
        let router = Router()
        router.post("/base/v1/batch") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            seen.withLock {
                $0.append(
                    Seen(
                        path: request.uri.path, authorization: request.headers[.authorization],
                        encoding: request.headers[.contentEncoding], body: Array(body.readableBytesView)))
            }
            guard answerBytes > 0 else { return Response(status: status, headers: headers) }
            let answer = ByteBuffer(repeating: UInt8(ascii: "x"), count: answerBytes)
            return Response(status: status, headers: headers, body: .init(byteBuffer: answer))
        }
        return await run(router)
    }

    /// Runs `router` on an ephemeral loopback port; returns the port and the server's task.
    private func run(_ router: Router<BasicRequestContext>) async -> (Int, Task<Void, any Error>) {
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "test-server")
        logger.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { portSink.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        var port = 0
        for await p in ports {
            port = p
            break
        }
        return (port, server)
    }

    @Test func postsAndReturnsStatusAndHeaders() async throws {
        let seen = SeenLog()
        let (port, server) = try await startServer(status: .tooManyRequests, headers: [.retryAfter: "3"], seen: seen)
        let transport = HTTPDeliveryTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let request = DeliveryRequest(
            url: "http://127.0.0.1:\(port)/base/v1/batch",
            headers: [("Authorization", "Basic abc"), ("Content-Type", "application/json")],
            body: Array(#"{"batch":[]}"#.utf8), timeout: .seconds(10))
        let response = await transport.send(request)
        // Shut down before any check that may return early: a client dropped while still up
        // fails AsyncHTTPClient's debug precondition and takes the whole test process down.
        // First, too, so the keep-alive connection closes and the server stops at once.
        await transport.shutdown()
        guard case .status(let code, _) = response else { Issue.record("got \(response)"); return }
        #expect(code == 429)
        #expect(response.header("retry-after") == "3")
        #expect(seen.withLock { $0.first?.authorization } == "Basic abc")
        #expect(seen.withLock { $0.first?.body } == Array(#"{"batch":[]}"#.utf8))
        server.cancel()
        _ = try? await server.value
        // AsyncHTTPClient retries refused connections until the deadline: keep it short.
        let fresh = HTTPDeliveryTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, connectTimeout: .milliseconds(300))
        var short = request
        short.timeout = .milliseconds(500)
        let refused = await fresh.send(short)
        await fresh.shutdown()
        guard case .networkError = refused else { Issue.record("expected a network error, got \(refused)"); return }
    }

    /// A transport on the caller's event loop group leaves the group running at shutdown, so
    /// other transports (and the rest of the process) keep using it.
    @Test func aTransportOnTheSharedGroupLeavesItRunning() async throws {
        let seen = SeenLog()
        let (port, server) = try await startServer(status: .ok, seen: seen)
        let request = DeliveryRequest(
            url: "http://127.0.0.1:\(port)/base/v1/batch", headers: [],
            body: Array(#"{"batch":[]}"#.utf8), timeout: .seconds(10))
        for _ in 0..<2 {
            let transport = HTTPDeliveryTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, maxConnectionsPerHost: 2)
            let response = await transport.send(request)
            await transport.shutdown()  // before the check: see postsAndReturnsStatusAndHeaders
            guard case .status(200, _) = response else { Issue.record("got \(response)"); return }
        }
        server.cancel()
        _ = try? await server.value
        #expect(seen.withLock { $0.count } == 2)
    }

    /// The body of an answer is drained and dropped, whatever its size, and the connection is
    /// reused for the next request.
    @Test(arguments: [64 * 1024, 3 << 20])
    func responseBodiesAreDrained(bytes: Int) async throws {
        let seen = SeenLog()
        let (port, server) = try await startServer(status: .ok, answerBytes: bytes, seen: seen)
        let transport = HTTPDeliveryTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let request = DeliveryRequest(
            url: "http://127.0.0.1:\(port)/base/v1/batch", headers: [],
            body: Array(#"{"batch":[]}"#.utf8), timeout: .seconds(10))
        let first = await transport.send(request)
        let second = await transport.send(request)
        await transport.shutdown()
        server.cancel()
        _ = try? await server.value
        for response in [first, second] {
            guard case .status(200, _) = response else { Issue.record("\(bytes) bytes: got \(response)"); return }
        }
        #expect(seen.withLock { $0.count } == 2)
    }

    /// Cancelling the sending task ends a request that is waiting for its answer at once, as a
    /// network error, instead of at its deadline.
    @Test func cancellingTheTaskCancelsTheRequest() async throws {
        let (arrivals, arrival) = AsyncStream.makeStream(of: Void.self)
        let (held, release) = AsyncStream.makeStream(of: Void.self)
        let router = Router()
        router.post("/slow") { _, _ -> Response in
            arrival.yield()
            for await _ in held {}  // no answer until the test ends
            return Response(status: .ok)
        }
        let (port, server) = await run(router)
        let transport = HTTPDeliveryTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        let request = DeliveryRequest(url: "http://127.0.0.1:\(port)/slow", headers: [], body: Array("{}".utf8), timeout: .seconds(30))
        let sending = Task { await transport.send(request) }
        for await _ in arrivals { break }  // the request is at the server, waiting for its answer
        let started = ContinuousClock.now  // from the cancel: reaching the server is not what is timed
        sending.cancel()
        let response = await sending.value
        let took = ContinuousClock.now - started
        await transport.shutdown()
        release.finish()
        server.cancel()
        _ = try? await server.value
        guard case .networkError = response else { Issue.record("expected a network error, got \(response)"); return }
        #expect(took < .seconds(10), "the request ran to its deadline instead of being cancelled")
    }

    @Test func engineOverHTTPWithGzip() async throws {
        let seen = SeenLog()
        let (port, server) = try await startServer(status: .ok, seen: seen)
        let transport = HTTPDeliveryTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        var c = DeliveryConfiguration(host: "http://127.0.0.1:\(port)/base", writeKey: "wk")
        c.gzip = true
        #expect(throws: Never.self) { try c.validate() }
        let sink = OutcomeSink()
        let engine = DeliveryEngine(configuration: c, transport: transport, onOutcomes: sink.callback)
        async let _ = engine.run()
        for i in 0..<25 { _ = await engine.submit(testEvent("m\(i)", user: "u\(i % 4)")) }
        let stats = await engine.finish()
        #expect(stats.eventsDelivered == 25)
        #expect(sink.all.count == 25)
        let requests = seen.withLock { $0 }
        var ids: [String] = []
        for r in requests {
            #expect(r.path == "/base/v1/batch")
            #expect(r.encoding == "gzip")
            #expect(r.authorization == "Basic " + Data("wk:".utf8).base64EncodedString())
            let root = try JSONValue(parsing: GzipCodec.decompress(r.body)).objectValue
            #expect(root?["sentAt"]?.stringValue != nil)
            for e in root?["batch"]?.arrayValue ?? [] {
                #expect(e.objectValue?["writeKey"]?.stringValue == "wk")
                ids.append(e.objectValue?["messageId"]?.stringValue ?? "?")
            }
        }
        #expect(Set(ids) == Set((0..<25).map { "m\($0)" }))
        await transport.shutdown()
        server.cancel()
        _ = try? await server.value
    }
}
