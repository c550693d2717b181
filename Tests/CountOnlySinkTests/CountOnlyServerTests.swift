import AsyncHTTPClient
import CountOnlySink
import Foundation
import IngestionChecks
import JSONCore
import NIOCore
import ServerTestHarness
import Testing

/// The count-only sink's own behaviour: its hand-written HTTP/1.1 handling and its counters.
/// (The checks it shares with the full collector are in ``SharedChecksTests``.)
@Suite struct CountOnlyServerTests {
    let threeEvents = Fixtures.batch([Fixtures.track("a"), Fixtures.track("b"), Fixtures.track("c")])

    @Test func countsPlainAndGzipBodies() async throws {
        try await CountOnlyHarness.run { h in
            let plain = try await h.post(Fixtures.analyticsPythonBody)
            let gz = try gzip(Array(threeEvents.utf8))
            // The same gzip body three times: the connection's reused buffers must not leak state.
            var zipped: [Int] = []
            for _ in 0..<3 { zipped.append(try await h.post(gz, gzip: true).status) }
            let stats = h.server.stats()
            await h.stop()
            #expect(plain.status == 200)
            #expect(plain.body == "{\"success\":true}")
            #expect(plain.headers.first(name: "Content-Type") == "application/json")
            #expect(zipped == [200, 200, 200])
            #expect(stats.events == Fixtures.analyticsPythonEventCount + 9)
            #expect(stats.requests == 4)
            #expect(stats.responses == ["200": 4])
            #expect(stats.maxBatchEvents == Fixtures.analyticsPythonEventCount)
            #expect(stats.bytes == Fixtures.analyticsPythonBody.utf8.count + 3 * gz.count)
        }
    }

    /// Events are counted, not validated: an invalid event is counted, refusals are not.
    @Test func countsWithoutFieldChecks() async throws {
        try await CountOnlyHarness.run { h in
            let body = Fixtures.batch([Fixtures.track("a"), "{\"type\":\"nope\"}", Fixtures.track("a")])
            let counted = try await h.post(body).status
            let truncated = try await h.post("{\"batch\":[1,").status
            let wrongKey = try await h.post(body, auth: basic("wrong")).status
            let stats = h.server.stats()
            await h.stop()
            #expect([counted, truncated, wrongKey] as [Int] == [200, 400, 401])
            #expect(stats.events == 3)
            #expect(stats.requests == 3)
            #expect(stats.maxBatchEvents == 3)
            #expect(stats.bytes == body.utf8.count * 2 + 12)
            #expect(stats.responses == ["200": 1, "400": 1, "401": 1])
        }
    }

    @Test func severalRequestsOnOneKeepAliveConnection() async throws {
        try await CountOnlyHarness.run { h in
            let connection = try RawConnection(port: h.port)
            let auth = "Authorization: " + basic()
            let body = Array(threeEvents.utf8)
            // One after another on the same connection, plain and gzip.
            for gz in [false, true, false] {
                try connection.send(
                    RawConnection.request(
                        body: gz ? try gzip(body) : body, headers: gz ? [auth, "Content-Encoding: gzip"] : [auth]))
                let r = try #require(try connection.readResponse())
                #expect(r.status == 200)
                #expect(r.body == "{\"success\":true}")
                #expect(r.headers["connection"] == nil)
            }
            // Pipelined: two requests (a batch and a stats read) in one write, answered in order.
            try connection.send(
                RawConnection.request(body: body, headers: [auth]) + RawConnection.request("GET", path: "/stats"))
            let first = try #require(try connection.readResponse())
            #expect(first.status == 200)
            let second = try #require(try connection.readResponse())
            #expect(second.status == 200)
            let pipelinedStats = try JSONDecoder().decode(CollectorStats.self, from: Data(second.body.utf8))
            #expect(pipelinedStats.events == 12)
            // An error answer keeps the connection too.
            try connection.send(RawConnection.request(path: "/nowhere", body: body, headers: [auth]))
            #expect(try connection.readResponse()?.status == 404)
            // `Connection: close` is honoured: answered, then closed by the server.
            try connection.send(RawConnection.request(body: body, headers: [auth, "Connection: close"]))
            let last = try #require(try connection.readResponse())
            #expect(last.status == 200)
            #expect(last.headers["connection"] == "close")
            #expect(try connection.isClosedByServer())
            let stats = h.server.stats()
            await h.stop()
            #expect(stats.events == 15)
            #expect(stats.requests == 6)
            #expect(stats.responses == ["200": 5, "404": 1])
        }
    }

    @Test func http10AndExpectContinue() async throws {
        try await CountOnlyHarness.run { h in
            let auth = "Authorization: " + basic()
            let body = Array(threeEvents.utf8)
            // HTTP/1.0 without keep-alive: answered, then closed.
            let old = try RawConnection(port: h.port)
            var request = RawConnection.request(body: body, headers: [auth])
            request.replaceSubrange(0..<"POST /v1/batch HTTP/1.1".utf8.count, with: Array("POST /v1/batch HTTP/1.0".utf8))
            try old.send(request)
            #expect(try old.readResponse()?.status == 200)
            #expect(try old.isClosedByServer())
            // Expect: 100-continue gets its interim answer before the body is sent.
            let c = try RawConnection(port: h.port)
            let head = RawConnection.request(body: body, headers: [auth, "Expect: 100-continue"]).dropLast(body.count)
            try c.send(Array(head))
            #expect(try c.readResponse()?.status == 100)
            try c.send(body)
            #expect(try c.readResponse()?.status == 200)
            // A request the parser cannot read: 400 and the connection is closed.
            let bad = try RawConnection(port: h.port)
            try bad.send(Array("NOT HTTP AT ALL\r\n\r\n".utf8))
            #expect(try bad.readResponse()?.status == 400)
            #expect(try bad.isClosedByServer())
            let events = h.server.stats().events
            await h.stop()
            #expect(events == 6)
        }
    }

    /// No header and the key on every event: the sink does not read keys from bodies.
    @Test func aWriteKeyInTheBodyIsNotEnough() async throws {
        try await CountOnlyHarness.run { h in
            let keyed = Fixtures.batch([Fixtures.track("a", extra: ",\"writeKey\":\"test-key\"")])
            let r = try await h.post(keyed, auth: nil)
            await h.stop()
            #expect(r.status == 401)
        }
    }

    /// Refusals are counted by status, with the configured oversize status.
    @Test(arguments: [400, 413])
    func limitRefusalsAreCounted(oversizeStatus: Int) async throws {
        try await CountOnlyHarness.run {
            $0.oversizeStatus = oversizeStatus
        } body: { h in
            let tiny = (0..<2501).map { _ in "{\"type\":\"track\",\"event\":\"E\",\"userId\":\"u\"}" }
            let over = try await h.post(Fixtures.batch(tiny)).status
            let exactly = try await h.post(Fixtures.batch(Array(tiny.prefix(2500)))).status
            let fits = Fixtures.track("f", extra: ",\"p\":\"\(String(repeating: "y", count: 32 * 1024 - 100))\"")
            let oneBig = try await h.post(Fixtures.batch([fits])).status
            let corrupt = try await h.post([0x1f, 0x8b, 1, 2, 3], gzip: true).status
            let stats = h.server.stats()
            await h.stop()
            #expect([over, exactly, oneBig, corrupt] as [Int] == [oversizeStatus, 200, 200, 400])
            #expect(stats.events == 2501)
            #expect(stats.maxBatchEvents == 2500)
            #expect(stats.requests == 4)
            #expect(stats.responses(oversizeStatus) == (oversizeStatus == 400 ? 2 : 1))
        }
    }

    @Test func statsPathsAndMethods() async throws {
        try await CountOnlyHarness.run {
            $0.basePath = "/x/"
        } body: { h in
            let a = try await h.post(threeEvents, path: "/x/v1/batch").status
            let b = try await h.post(threeEvents, path: "/x/v1/batch/?q=1").status
            let outside = try await h.post(threeEvents, path: "/v1/batch")
            let get = try await h.get("/x/v1/batch")
            let elsewhere = try await h.get("/elsewhere").status
            let postStats = try await h.post(threeEvents, path: "/x/stats").status
            let stats = try await h.get("/x/stats")
            let plainStats = try await h.get("/stats")
            let final = h.server.stats()
            await h.stop()
            #expect([a, b, elsewhere, postStats] as [Int] == [200, 200, 404, 404])
            #expect(outside.status == 404)
            #expect(outside.body == "{\"success\":false,\"error\":\"not found\"}")
            #expect(get.status == 405)
            #expect(get.body == "{\"success\":false,\"error\":\"method not allowed\"}")
            #expect(stats.status == 200)
            #expect(plainStats.status == 200)
            // The same keys as the full collector's /stats.
            let object = try #require(try JSONValue(parsing: stats.body).objectValue)
            let full = try #require(try JSONValue(parsing: CollectorStats().jsonText).objectValue)
            #expect(Set(object.keys) == Set(full.keys))
            let s = try JSONDecoder().decode(CollectorStats.self, from: Data(stats.body.utf8))
            #expect(s.events == 6)
            #expect(s.requests == 6)  // GET /stats is not counted
            #expect(s.responses == ["200": 2, "404": 3, "405": 1])
            #expect(s.bytes == 4 * threeEvents.utf8.count)
            #expect(final.jsonText == stats.body)
        }
    }

    @Test func twoThreadsCountEveryRequest() async throws {
        try await CountOnlyHarness.run(threads: 2) { h in
            let body = threeEvents
            let ok = try await withHTTPClient(connectionsPerHost: 16) { client in
                let wide = Posting(client: client, base: h.base)
                return try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<16 {
                        group.addTask {
                            var ok = 0
                            for _ in 0..<20 {
                                if try await wide.post(body).status == 200 { ok += 1 }
                            }
                            return ok
                        }
                    }
                    return try await group.reduce(0, +)
                }
            }
            let stats = h.server.stats()
            await h.stop()
            #expect(ok == 320)
            #expect(stats.events == 960)
            #expect(stats.requests == 320)
            #expect(stats.responses == ["200": 320])
        }
    }

    @Test func shutdownFinishesARequestInProgress() async throws {
        try await CountOnlyHarness.run { h in
            let auth = "Authorization: " + basic()
            let body = Array(threeEvents.utf8)
            let busy = try RawConnection(port: h.port)
            let idle = try RawConnection(port: h.port)
            try idle.send(RawConnection.request("GET", path: "/stats"))
            #expect(try idle.readResponse()?.status == 200)
            // A request whose head has been read (the 100 Continue proves it) but not its body, then
            // shutdown, then the body.
            let request = RawConnection.request(body: body, headers: [auth, "Expect: 100-continue"])
            try busy.send(Array(request.dropLast(body.count)))
            #expect(try busy.readResponse()?.status == 100)
            async let stopping: Void = h.stop()
            #expect(try idle.isClosedByServer())
            try busy.send(body)
            let r = try #require(try busy.readResponse())
            #expect(r.status == 200)
            // The answer says `Connection: close` when the quiesce reached this connection first;
            // either way the server closes it once the request is answered.
            #expect(r.headers["connection"] == nil || r.headers["connection"] == "close")
            #expect(try busy.isClosedByServer())
            await stopping
            #expect(h.server.stats().events == 3)
            // No longer listening.
            #expect(throws: (any Error).self) { _ = try RawConnection(port: h.port) }
        }
    }
}
