import Collector
import Foundation
import JSONCore
import XCTest

final class IngestionTests: XCTestCase {
    func testAcceptsAnalyticsPythonBodyAndStoresEventsExactly() async throws {
        let path = temporaryPath(".ndjson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let h = try await Harness.start { $0.store = .ndjson(path) }
        let r = try await h.post(Fixtures.analyticsPythonBody)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.body, "{\"success\":true}")
        let stats = await h.server.stats()
        try await h.stop()

        XCTAssertEqual(stats.events, Fixtures.analyticsPythonEventCount)
        XCTAssertEqual(stats.unique, Fixtures.analyticsPythonEventCount)
        XCTAssertEqual(stats.invalid, 0)
        XCTAssertEqual(stats.maxBatchEvents, Fixtures.analyticsPythonEventCount)
        XCTAssertEqual(stats.responses(200), 1)
        XCTAssertEqual(stats.bytes, Fixtures.analyticsPythonBody.utf8.count)

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let sent = try JSONValue(parsing: Fixtures.analyticsPythonBody).objectValue?["batch"]?.arrayValue
        XCTAssertEqual(lines.count, Fixtures.analyticsPythonEventCount)
        for (line, original) in zip(lines, sent ?? []) {
            XCTAssertEqual(try JSONValue(parsing: String(line)), original)
        }
        // Exact bytes: numbers and escapes as sent.
        XCTAssertTrue(lines[0].contains("12345678901234567890"))
        XCTAssertTrue(lines[0].contains("0.1000000000000000055511151231257827"))
        XCTAssertTrue(lines[0].contains("caf\\u00e9 \\ud83d\\ude00 \u{65e5}\u{672c}"))
    }

    func testPrettyPrintedEventsAreStoredOnOneLine() async throws {
        let path = temporaryPath(".ndjson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let h = try await Harness.start { $0.store = .ndjson(path) }
        let body = "{\n  \"batch\": [\n    {\n      \"type\": \"track\",\n      \"event\": \"A\",\n      \"userId\": \"u\",\n      \"n\": 1.50\n    }\n  ]\n}"
        let r = try await h.post(body)
        XCTAssertEqual(r.status, 200)
        try await h.stop()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(text, "{\"type\":\"track\",\"event\":\"A\",\"userId\":\"u\",\"n\":1.50}\n")
    }

    func testGzipBodyAndBasePath() async throws {
        let h = try await Harness.start { $0.basePath = "/collector/" }
        let body = Array(Fixtures.analyticsPythonBody.utf8)
        let gz = try gzip(body)
        let r = try await h.post(gz, path: "/collector/v1/batch", gzip: true)
        XCTAssertEqual(r.status, 200)
        let slash = try await h.post(Fixtures.batch([Fixtures.track("s")]), path: "/collector/v1/batch/")
        XCTAssertEqual(slash.status, 200)
        let missing = try await h.post(Fixtures.analyticsPythonBody, path: "/v1/batch")
        XCTAssertEqual(missing.status, 404)
        let corrupt = try await h.post([0x1f, 0x8b, 1, 2, 3], path: "/collector/v1/batch", gzip: true)
        XCTAssertEqual(corrupt.status, 400)
        let stats = try await h.get("/collector/stats")
        XCTAssertEqual(stats.status, 200)
        let s = try JSONDecoder().decode(CollectorStats.self, from: Data(stats.body.utf8))
        XCTAssertEqual(s.events, Fixtures.analyticsPythonEventCount + 1)
        XCTAssertEqual(s.bytes, gz.count + body.count + 5 + Fixtures.batch([Fixtures.track("s")]).utf8.count)
        XCTAssertEqual(s.responses, ["200": 2, "404": 1, "400": 1])
        try await h.stop()
    }

    func testGzipBodiesThatTheFastPathDoesNotTake() async throws {
        let h = try await Harness.start()
        let body = Array(Fixtures.batch([Fixtures.track("a"), Fixtures.track("b")]).utf8)
        // A trailer claiming a size over the limit: not trusted (nor allocated); the streaming
        // zlib path checks the member and refuses it as invalid, not as too large.
        var lying = try gzip(body)
        lying.replaceSubrange((lying.count - 4)..., with: [0xFF, 0xFF, 0xFF, 0x7F])
        let lied = try await h.post(lying, gzip: true)
        XCTAssertEqual(lied.status, 400)
        XCTAssertTrue(lied.body.contains("invalid gzip"), lied.body)
        // A member cut in the middle of its compressed data.
        let whole = try gzip(body)
        let truncated = try await h.post(Array(whole.prefix(whole.count / 2)), gzip: true)
        XCTAssertEqual(truncated.status, 400)
        // The usual single member.
        let ok = try await h.post(whole, gzip: true)
        XCTAssertEqual(ok.status, 200)
        let stats = await h.server.stats()
        XCTAssertEqual(stats.events, 2)
        XCTAssertEqual(stats.responses, ["200": 1, "400": 2])
        try await h.stop()
    }

    func testStatsEndpointHasAllKeys() async throws {
        let h = try await Harness.start()
        _ = try await h.post(Fixtures.batch([Fixtures.track("a"), Fixtures.track("a"), Fixtures.track("b")]))
        let r = try await h.get("/stats")
        XCTAssertEqual(r.status, 200)
        let object = try XCTUnwrap(try JSONValue(parsing: r.body).objectValue)
        for key in ["requests", "responses", "events", "unique", "duplicates", "invalid", "bytes", "max_batch_events"] {
            XCTAssertNotNil(object[key], key)
        }
        XCTAssertEqual(object["requests"], 1)
        XCTAssertEqual(object["events"], 3)
        XCTAssertEqual(object["unique"], 2)
        XCTAssertEqual(object["duplicates"], 1)
        XCTAssertEqual(object["responses"], ["200": 1])
        try await h.stop()
    }

    func testDuplicatesAcrossRequestsAreCountedAndAllKept() async throws {
        let path = temporaryPath(".ndjson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let h = try await Harness.start { $0.store = .ndjson(path) }
        let body = Fixtures.batch([Fixtures.track("m1"), Fixtures.track("m2")])
        for _ in 0..<3 { let status = try await h.post(body).status; XCTAssertEqual(status, 200) }
        let stats = await h.server.stats()
        try await h.stop()
        XCTAssertEqual(stats.events, 6)
        XCTAssertEqual(stats.unique, 2)
        XCTAssertEqual(stats.duplicates, 4)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 6)
    }

    func testSQLiteStoreKeepsEveryEvent() async throws {
        let path = temporaryPath(".sqlite")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let h = try await Harness.start { $0.store = .sqlite(path) }
        do { let status = try await h.post(Fixtures.analyticsPythonBody).status; XCTAssertEqual(status, 200) }
        do { let status = try await h.post(Fixtures.batch([Fixtures.track("9d1a1f2e-6b7c-4a8f-9e0d-1f2a3b4c5d6e")])).status; XCTAssertEqual(status, 200) }
        try await h.stop()
        let rows = try SQLiteReader.rows(path)
        XCTAssertEqual(rows.count, Fixtures.analyticsPythonEventCount + 1)
        XCTAssertEqual(rows.filter { $0.messageId == "9d1a1f2e-6b7c-4a8f-9e0d-1f2a3b4c5d6e" }.count, 2)
        let sent = try JSONValue(parsing: Fixtures.analyticsPythonBody).objectValue?["batch"]?.arrayValue
        XCTAssertEqual(try JSONValue(parsing: rows[0].body), sent?[0])
    }

    func testCountOnlyCountsWithoutStoringOrFieldChecks() async throws {
        let path = temporaryPath(".ndjson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let h = try await Harness.start {
            $0.countOnly = true
            $0.store = .ndjson(path)
        }
        let body = try await h.postCountOnlyChecks()
        let stats = await h.server.stats()
        try await h.stop()
        assertCountOnlyStats(stats, body: body)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "")
    }
}
