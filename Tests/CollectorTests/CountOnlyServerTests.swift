import AsyncHTTPClient
import Collector
import Foundation
import JSONCore
import NIOCore
import XCTest

/// Starts a ``CountOnlyServer`` on an ephemeral port and talks to it over real HTTP.
struct CountOnlyHarness: HTTPHarness {
    let server: CountOnlyServer
    let client: HTTPClient
    let base: String
    let port: Int

    static func start(
        threads: Int = 1, _ configure: (inout CollectorConfiguration) -> Void = { _ in }
    ) async throws -> CountOnlyHarness {
        var config = CollectorConfiguration(writeKey: Harness.key)
        configure(&config)
        let server = CountOnlyServer(configuration: config, eventLoopThreads: threads)
        let port = try await server.start()
        XCTAssertGreaterThan(port, 0)
        let base = await server.baseURL
        XCTAssertEqual(base, "http://127.0.0.1:\(port)")
        return CountOnlyHarness(
            server: server, client: HTTPClient(eventLoopGroupProvider: .singleton), base: base, port: port)
    }

    func stop() async throws {
        try await client.shutdown()
        try await server.shutdown()
    }
}

final class CountOnlyServerTests: XCTestCase {
    private let threeEvents = Fixtures.batch([Fixtures.track("a"), Fixtures.track("b"), Fixtures.track("c")])

    func testCountsPlainAndGzipBodies() async throws {
        let h = try await CountOnlyHarness.start()
        let plain = try await h.post(Fixtures.analyticsPythonBody)
        XCTAssertEqual(plain.status, 200)
        XCTAssertEqual(plain.body, "{\"success\":true}")
        XCTAssertEqual(plain.headers.first(name: "Content-Type"), "application/json")
        let gz = try gzip(Array(threeEvents.utf8))
        let zipped = try await h.post(gz, gzip: true)
        XCTAssertEqual(zipped.status, 200)
        // The same gzip body twice more: the connection's reused buffers must not leak state.
        for _ in 0..<2 { let status = try await h.post(gz, gzip: true).status; XCTAssertEqual(status, 200) }
        let stats = await h.server.stats()
        try await h.stop()
        XCTAssertEqual(stats.events, Fixtures.analyticsPythonEventCount + 9)
        XCTAssertEqual(stats.requests, 4)
        XCTAssertEqual(stats.responses, ["200": 4])
        XCTAssertEqual(stats.maxBatchEvents, Fixtures.analyticsPythonEventCount)
        XCTAssertEqual(stats.bytes, Fixtures.analyticsPythonBody.utf8.count + 3 * gz.count)
        XCTAssertEqual(stats.unique, 0)
        XCTAssertEqual(stats.invalid, 0)
    }

    /// The assertions of `IngestionTests.testCountOnlyCountsWithoutStoringOrFieldChecks` (the
    /// Hummingbird count-only path), against the NIO server.
    func testCountsWithoutFieldChecksLikeTheFullCollectorsCountOnlyMode() async throws {
        let h = try await CountOnlyHarness.start()
        let body = try await h.postCountOnlyChecks()
        let stats = await h.server.stats()
        try await h.stop()
        assertCountOnlyStats(stats, body: body)
        XCTAssertEqual(stats.responses, ["200": 1, "400": 1, "401": 1])
    }

    func testSeveralRequestsOnOneKeepAliveConnection() async throws {
        let h = try await CountOnlyHarness.start()
        let connection = try RawConnection(port: h.port)
        let auth = "Authorization: " + Harness.basic()
        let body = Array(threeEvents.utf8)
        // One after another on the same connection, plain and gzip.
        for i in 0..<3 {
            let gz = i == 1
            try connection.send(
                RawConnection.request(
                    body: gz ? try gzip(body) : body, headers: gz ? [auth, "Content-Encoding: gzip"] : [auth]))
            let r = try XCTUnwrap(try connection.readResponse())
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.body, "{\"success\":true}")
            XCTAssertNil(r.headers["connection"])
        }
        // Pipelined: two requests (a batch and a stats read) in one write, answered in order.
        try connection.send(
            RawConnection.request(body: body, headers: [auth]) + RawConnection.request("GET", path: "/stats"))
        let first = try XCTUnwrap(try connection.readResponse())
        XCTAssertEqual(first.status, 200)
        let second = try XCTUnwrap(try connection.readResponse())
        XCTAssertEqual(second.status, 200)
        let pipelinedStats = try JSONDecoder().decode(CollectorStats.self, from: Data(second.body.utf8))
        XCTAssertEqual(pipelinedStats.events, 12)
        // An error answer keeps the connection too.
        try connection.send(RawConnection.request(path: "/nowhere", body: body, headers: [auth]))
        do { let status = try XCTUnwrap(try connection.readResponse()).status; XCTAssertEqual(status, 404) }
        // `Connection: close` is honoured: answered, then closed by the server.
        try connection.send(RawConnection.request(body: body, headers: [auth, "Connection: close"]))
        let last = try XCTUnwrap(try connection.readResponse())
        XCTAssertEqual(last.status, 200)
        XCTAssertEqual(last.headers["connection"], "close")
        XCTAssertTrue(try connection.isClosedByServer())
        let stats = await h.server.stats()
        try await h.stop()
        XCTAssertEqual(stats.events, 15)
        XCTAssertEqual(stats.requests, 6)
        XCTAssertEqual(stats.responses, ["200": 5, "404": 1])
    }

    func testHTTP10AndExpectContinue() async throws {
        let h = try await CountOnlyHarness.start()
        let auth = "Authorization: " + Harness.basic()
        let body = Array(threeEvents.utf8)
        // HTTP/1.0 without keep-alive: answered, then closed.
        let old = try RawConnection(port: h.port)
        var request = RawConnection.request(body: body, headers: [auth])
        request.replaceSubrange(0..<"POST /v1/batch HTTP/1.1".utf8.count, with: Array("POST /v1/batch HTTP/1.0".utf8))
        try old.send(request)
        do { let status = try XCTUnwrap(try old.readResponse()).status; XCTAssertEqual(status, 200) }
        XCTAssertTrue(try old.isClosedByServer())
        // Expect: 100-continue gets its interim answer before the body is sent.
        let c = try RawConnection(port: h.port)
        let head = RawConnection.request(body: body, headers: [auth, "Expect: 100-continue"]).dropLast(body.count)
        try c.send(Array(head))
        do { let status = try XCTUnwrap(try c.readResponse()).status; XCTAssertEqual(status, 100) }
        try c.send(body)
        do { let status = try XCTUnwrap(try c.readResponse()).status; XCTAssertEqual(status, 200) }
        // A request the parser cannot read: 400 and the connection is closed.
        let bad = try RawConnection(port: h.port)
        try bad.send(Array("NOT HTTP AT ALL\r\n\r\n".utf8))
        do { let status = try XCTUnwrap(try bad.readResponse()).status; XCTAssertEqual(status, 400) }
        XCTAssertTrue(try bad.isClosedByServer())
        let events = await h.server.stats().events
        try await h.stop()
        XCTAssertEqual(events, 6)
    }

    func testAuthentication() async throws {
        let h = try await CountOnlyHarness.start()
        let refusals = [nil, Harness.basic("other"), Harness.basic(password: "secret"), "Bearer test-key", "Basic !!"]
        for auth in refusals {
            let r = try await h.post(threeEvents, auth: auth)
            XCTAssertEqual(r.status, 401, auth ?? "no header")
            XCTAssertEqual(r.body, "{\"success\":false,\"error\":\"missing or invalid write key\"}")
        }
        // No header and the key on every event: the count-only server does not read keys from bodies.
        let keyed = Fixtures.batch([Fixtures.track("a", extra: ",\"writeKey\":\"test-key\"")])
        do { let status = try await h.post(keyed, auth: nil).status; XCTAssertEqual(status, 401) }
        // The scheme is case-insensitive, as in the full collector.
        let lower = "basic " + Data("test-key:".utf8).base64EncodedString()
        do { let status = try await h.post(threeEvents, auth: lower).status; XCTAssertEqual(status, 200) }
        let stats = await h.server.stats()
        try await h.stop()
        XCTAssertEqual(stats.responses, ["401": 6, "200": 1])
        XCTAssertEqual(stats.events, 3)
        XCTAssertEqual(stats.requests, 7)
    }

    func testLimits() async throws {
        for status in [400, 413] {
            let h = try await CountOnlyHarness.start { $0.oversizeStatus = status }
            // more than 2,500 events, and exactly 2,500
            let tiny = (0..<2501).map { _ in "{\"type\":\"track\",\"event\":\"E\",\"userId\":\"u\"}" }
            do { let got = try await h.post(Fixtures.batch(tiny)).status; XCTAssertEqual(got, status) }
            do { let got = try await h.post(Fixtures.batch(Array(tiny.prefix(2500)))).status; XCTAssertEqual(got, 200) }
            // the same over the limit, gzipped
            do {
                let got = try await h.post(try gzip(Array(Fixtures.batch(tiny).utf8)), gzip: true).status
                XCTAssertEqual(got, status)
            }
            // one event over 32 KiB; just under is fine
            let huge = Fixtures.track("h", extra: ",\"p\":\"\(String(repeating: "y", count: 33 * 1024))\"")
            do { let got = try await h.post(Fixtures.batch([huge])).status; XCTAssertEqual(got, status) }
            let fits = Fixtures.track("f", extra: ",\"p\":\"\(String(repeating: "y", count: 32 * 1024 - 100))\"")
            do { let got = try await h.post(Fixtures.batch([fits])).status; XCTAssertEqual(got, 200) }
            // a body over 500,000 bytes, plain and gzipped (the limit applies after decompression)
            let padding = String(repeating: "x", count: 900)
            let bigBody = Fixtures.batch((0..<600).map { Fixtures.track("m\($0)", extra: ",\"p\":\"\(padding)\"") })
            XCTAssertGreaterThan(bigBody.utf8.count, 500_000)
            do { let got = try await h.post(bigBody).status; XCTAssertEqual(got, status) }
            do {
                let r = try await h.post(try gzip(Array(bigBody.utf8)), gzip: true)
                XCTAssertEqual(r.status, status)
                XCTAssertEqual(r.body, "{\"success\":false,\"error\":\"body over 500000 bytes\"}")
            }
            // no batch array, a truncated one, an unknown encoding, a corrupt gzip body: 400
            for bad in ["{\"events\":[]}", "{\"batch\":[1,", "[]", ""] {
                let r = try await h.post(bad)
                XCTAssertEqual(r.status, 400, bad)
            }
            do {
                var request = HTTPClientRequest(url: h.base + "/v1/batch")
                request.method = .POST
                request.headers.add(name: "Authorization", value: Harness.basic())
                request.headers.add(name: "Content-Encoding", value: "br")
                request.body = .bytes(ByteBuffer(string: threeEvents))
                let r = try await h.client.execute(request, timeout: .seconds(10))
                XCTAssertEqual(r.status.code, 400)
            }
            do { let got = try await h.post([0x1f, 0x8b, 1, 2, 3], gzip: true).status; XCTAssertEqual(got, 400) }
            let stats = await h.server.stats()
            try await h.stop()
            XCTAssertEqual(stats.events, 2501)
            XCTAssertEqual(stats.maxBatchEvents, 2500)
            XCTAssertEqual(stats.requests, 13)
            if status == 400 {
                XCTAssertEqual(stats.responses, ["200": 2, "400": 11])
            } else {
                XCTAssertEqual(stats.responses, ["200": 2, "413": 5, "400": 6])
            }
        }
    }

    func testStatsPathsAndMethods() async throws {
        let h = try await CountOnlyHarness.start { $0.basePath = "/x/" }
        do { let status = try await h.post(threeEvents, path: "/x/v1/batch").status; XCTAssertEqual(status, 200) }
        do { let status = try await h.post(threeEvents, path: "/x/v1/batch/?q=1").status; XCTAssertEqual(status, 200) }
        do {
            let r = try await h.post(threeEvents, path: "/v1/batch")
            XCTAssertEqual(r.status, 404)
            XCTAssertEqual(r.body, "{\"success\":false,\"error\":\"not found\"}")
        }
        do {
            let r = try await h.get("/x/v1/batch")
            XCTAssertEqual(r.status, 405)
            XCTAssertEqual(r.body, "{\"success\":false,\"error\":\"method not allowed\"}")
        }
        do { let status = try await h.get("/elsewhere").status; XCTAssertEqual(status, 404) }
        do { let status = try await h.post(threeEvents, path: "/x/stats").status; XCTAssertEqual(status, 404) }
        let stats = try await h.get("/x/stats")
        XCTAssertEqual(stats.status, 200)
        let plainStats = try await h.get("/stats")
        XCTAssertEqual(plainStats.status, 200)
        // The same keys as the full collector's /stats.
        let object = try XCTUnwrap(try JSONValue(parsing: stats.body).objectValue)
        let full = try XCTUnwrap(try JSONValue(parsing: CollectorStats().jsonText).objectValue)
        XCTAssertEqual(Set(object.keys), Set(full.keys))
        let s = try JSONDecoder().decode(CollectorStats.self, from: Data(stats.body.utf8))
        XCTAssertEqual(s.events, 6)
        XCTAssertEqual(s.requests, 6)  // GET /stats is not counted
        XCTAssertEqual(s.responses, ["200": 2, "404": 3, "405": 1])
        XCTAssertEqual(s.bytes, 4 * threeEvents.utf8.count)
        let final = await h.server.stats()
        XCTAssertEqual(final, s)
        try await h.stop()
    }

    func testTwoThreadsCountEveryRequest() async throws {
        let h = try await CountOnlyHarness.start(threads: 2)
        var config = HTTPClient.Configuration()
        config.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 16
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
        let wide = CountOnlyHarness(server: h.server, client: client, base: h.base, port: h.port)
        let body = threeEvents
        let ok = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    var ok = 0
                    for _ in 0..<20 {
                        let status = try await wide.post(body).status
                        if status == 200 { ok += 1 }
                    }
                    return ok
                }
            }
            return try await group.reduce(0, +)
        }
        XCTAssertEqual(ok, 320)
        let stats = await h.server.stats()
        XCTAssertEqual(stats.events, 960)
        XCTAssertEqual(stats.requests, 320)
        XCTAssertEqual(stats.responses, ["200": 320])
        try await client.shutdown()
        try await h.stop()
    }

    func testShutdownFinishesARequestInProgress() async throws {
        let h = try await CountOnlyHarness.start()
        let auth = "Authorization: " + Harness.basic()
        let body = Array(threeEvents.utf8)
        let busy = try RawConnection(port: h.port)
        let idle = try RawConnection(port: h.port)
        try idle.send(RawConnection.request("GET", path: "/stats"))
        do { let status = try XCTUnwrap(try idle.readResponse()).status; XCTAssertEqual(status, 200) }
        // A request whose head has been read (the 100 Continue proves it) but not its body, then
        // shutdown, then the body.
        let request = RawConnection.request(body: body, headers: [auth, "Expect: 100-continue"])
        try busy.send(Array(request.dropLast(body.count)))
        do { let status = try XCTUnwrap(try busy.readResponse()).status; XCTAssertEqual(status, 100) }
        let stopping = Task { try await h.server.shutdown() }
        XCTAssertTrue(try idle.isClosedByServer())
        try busy.send(body)
        let r = try XCTUnwrap(try busy.readResponse())
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.headers["connection"], "close")
        XCTAssertTrue(try busy.isClosedByServer())
        try await stopping.value
        let stats = await h.server.stats()
        XCTAssertEqual(stats.events, 3)
        // No longer listening.
        XCTAssertThrowsError(try RawConnection(port: h.port))
        try await h.client.shutdown()
    }

    func testRefusesWhatItDoesNotDo() async throws {
        let faulty = CountOnlyServer(
            configuration: CollectorConfiguration(writeKey: "k", faults: FaultConfiguration(failureRate: 0.5)))
        do {
            _ = try await faulty.start()
            XCTFail("fault injection must be refused")
        } catch let error as CountOnlyServer.StartError {
            XCTAssertEqual(error, .unsupported("fault injection"))
        }
        let storing = CountOnlyServer(configuration: CollectorConfiguration(writeKey: "k", store: .ndjson("/tmp/x")))
        do {
            _ = try await storing.start()
            XCTFail("a store must be refused")
        } catch let error as CountOnlyServer.StartError {
            XCTAssertEqual(error, .unsupported("a store"))
        }
        // A second start, and a port in use.
        let h = try await CountOnlyHarness.start()
        do {
            _ = try await h.server.start()
            XCTFail("second start must fail")
        } catch let error as CountOnlyServer.StartError {
            XCTAssertEqual(error, .alreadyStarted)
        }
        let clash = CountOnlyServer(configuration: CollectorConfiguration(port: h.port, writeKey: "k"))
        do {
            _ = try await clash.start()
            XCTFail("binding a used port must fail")
        } catch {}
        try await h.stop()
    }
}
