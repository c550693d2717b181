import Collector
import Foundation
import JSONCore
import ServerTestHarness
import ServerTesting
import Testing

@Suite struct IngestionTests {
    @Test func acceptsAnalyticsPythonBodyAndStoresEventsExactly() async throws {
        let path = temporaryPath(".ndjson")
        defer { removeStoreFiles(path) }
        try await Harness.run {
            $0.store = .ndjson(path)
        } body: { h in
            let r = try await h.post(Fixtures.analyticsPythonBody)
            #expect(r.status == 200)
            #expect(r.body == "{\"success\":true}")
            let stats = h.server.stats()
            await h.stop()

            #expect(stats.events == Fixtures.analyticsPythonEventCount)
            #expect(stats.unique == Fixtures.analyticsPythonEventCount)
            #expect(stats.invalid == 0)
            #expect(stats.maxBatchEvents == Fixtures.analyticsPythonEventCount)
            #expect(stats.responses(200) == 1)
            #expect(stats.bytes == Fixtures.analyticsPythonBody.utf8.count)

            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            let sent = try JSONValue(parsing: Fixtures.analyticsPythonBody).objectValue?["batch"]?.arrayValue
            #expect(lines.count == Fixtures.analyticsPythonEventCount)
            for (line, original) in zip(lines, sent ?? []) {
                #expect(try JSONValue(parsing: String(line)) == original)
            }
            // Exact bytes: numbers and escapes as sent.
            #expect(lines[0].contains("12345678901234567890"))
            #expect(lines[0].contains("0.1000000000000000055511151231257827"))
            #expect(lines[0].contains("caf\\u00e9 \\ud83d\\ude00 \u{65e5}\u{672c}"))
        }
    }

    @Test func prettyPrintedEventsAreStoredOnOneLine() async throws {
        let path = temporaryPath(".ndjson")
        defer { removeStoreFiles(path) }
        try await Harness.run {
            $0.store = .ndjson(path)
        } body: { h in
            let body =
                "{\n  \"batch\": [\n    {\n      \"type\": \"track\",\n      \"event\": \"A\",\n      \"userId\": \"u\",\n      \"n\": 1.50\n    }\n  ]\n}"
            let r = try await h.post(body)
            #expect(r.status == 200)
            await h.stop()
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text == "{\"type\":\"track\",\"event\":\"A\",\"userId\":\"u\",\"n\":1.50}\n")
        }
    }

    @Test func gzipBodyAndBasePath() async throws {
        try await Harness.run {
            $0.basePath = "/collector/"
        } body: { h in
            let body = Array(Fixtures.analyticsPythonBody.utf8)
            let gz = try gzip(body)
            let r = try await h.post(gz, path: "/collector/v1/batch", gzip: true)
            #expect(r.status == 200)
            let slash = try await h.post(Fixtures.batch([Fixtures.track("s")]), path: "/collector/v1/batch/")
            #expect(slash.status == 200)
            let missing = try await h.post(Fixtures.analyticsPythonBody, path: "/v1/batch")
            #expect(missing.status == 404)
            let corrupt = try await h.post([0x1f, 0x8b, 1, 2, 3], path: "/collector/v1/batch", gzip: true)
            #expect(corrupt.status == 400)
            let stats = try await h.get("/collector/stats")
            #expect(stats.status == 200)
            let s = try JSONDecoder().decode(CollectorStats.self, from: Data(stats.body.utf8))
            #expect(s.events == Fixtures.analyticsPythonEventCount + 1)
            #expect(s.bytes == gz.count + body.count + 5 + Fixtures.batch([Fixtures.track("s")]).utf8.count)
            #expect(s.responses == ["200": 2, "404": 1, "400": 1])
        }
    }

    /// Bodies that are not one clean gzip member: a trailer that lies about the size, a member
    /// cut in its middle, and two members (read as one stream, as `gzip -d` does).
    @Test func gzipBodiesBeyondOneCleanMember() async throws {
        try await Harness.run { h in
            let a = Array(Fixtures.batch([Fixtures.track("a"), Fixtures.track("b")]).utf8)
            var lying = try gzip(a)
            lying.replaceSubrange((lying.count - 4)..., with: [0xFF, 0xFF, 0xFF, 0x7F])
            let lied = try await h.post(lying, gzip: true)
            #expect(lied.status == 400)
            #expect(lied.body.contains("invalid gzip"), "\(lied.body)")
            let whole = try gzip(a)
            let truncated = try await h.post(Array(whole.prefix(whole.count / 2)), gzip: true)
            #expect(truncated.status == 400)
            let split = a.count / 2
            let twoMembers = try gzip(Array(a.prefix(split))) + gzip(Array(a.dropFirst(split)))
            let joined = try await h.post(twoMembers, gzip: true)
            #expect(joined.status == 200)
            let ok = try await h.post(whole, gzip: true)
            #expect(ok.status == 200)
            let stats = h.server.stats()
            #expect(stats.events == 4)
            #expect(stats.responses == ["200": 2, "400": 2])
        }
    }

    @Test func statsEndpointHasAllKeys() async throws {
        try await Harness.run { h in
            _ = try await h.post(Fixtures.batch([Fixtures.track("a"), Fixtures.track("a"), Fixtures.track("b")]))
            let r = try await h.get("/stats")
            #expect(r.status == 200)
            let object = try #require(try JSONValue(parsing: r.body).objectValue)
            for key in ["requests", "responses", "events", "unique", "duplicates", "invalid", "bytes", "max_batch_events"] {
                #expect(object[key] != nil, "\(key)")
            }
            #expect(object["requests"] == 1)
            #expect(object["events"] == 3)
            #expect(object["unique"] == 2)
            #expect(object["duplicates"] == 1)
            #expect(object["responses"] == ["200": 1])
        }
    }

    @Test func duplicatesAcrossRequestsAreCountedAndAllKept() async throws {
        let path = temporaryPath(".ndjson")
        defer { removeStoreFiles(path) }
        try await Harness.run {
            $0.store = .ndjson(path)
        } body: { h in
            let body = Fixtures.batch([Fixtures.track("m1"), Fixtures.track("m2")])
            var statuses: [Int] = []
            for _ in 0..<3 { statuses.append(try await h.post(body).status) }
            let stats = h.server.stats()
            await h.stop()
            #expect(statuses == [200, 200, 200])
            #expect(stats.events == 6)
            #expect(stats.unique == 2)
            #expect(stats.duplicates == 4)
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 6)
        }
    }

    @Test func sqliteStoreKeepsEveryEvent() async throws {
        let path = temporaryPath(".sqlite")
        defer { removeStoreFiles(path) }
        try await Harness.run {
            $0.store = .sqlite(path)
        } body: { h in
            let first = try await h.post(Fixtures.analyticsPythonBody).status
            let second = try await h.post(Fixtures.batch([Fixtures.track("9d1a1f2e-6b7c-4a8f-9e0d-1f2a3b4c5d6e")])).status
            await h.stop()
            #expect([first, second] as [Int] == [200, 200])
            let rows = try SQLiteReader.rows(path)
            #expect(rows.count == Fixtures.analyticsPythonEventCount + 1)
            #expect(rows.filter { $0.messageId == "9d1a1f2e-6b7c-4a8f-9e0d-1f2a3b4c5d6e" }.count == 2)
            let sent = try JSONValue(parsing: Fixtures.analyticsPythonBody).objectValue?["batch"]?.arrayValue
            #expect(try JSONValue(parsing: rows[0].body) == sent?[0])
        }
    }
}
