import Collector
import Foundation
import XCTest

final class ValidationTests: XCTestCase {
    func testAuthentication() async throws {
        let h = try await Harness.start()
        let body = Fixtures.batch([Fixtures.track("a")])
        do { let status = try await h.post(body, auth: nil).status; XCTAssertEqual(status, 401) }
        do { let status = try await h.post(body, auth: Harness.basic("other")).status; XCTAssertEqual(status, 401) }
        do { let status = try await h.post(body, auth: Harness.basic(password: "secret")).status; XCTAssertEqual(status, 401) }
        do { let status = try await h.post(body, auth: "Bearer test-key").status; XCTAssertEqual(status, 401) }
        do { let status = try await h.post("not json", auth: nil).status; XCTAssertEqual(status, 401) }
        // writeKey on every event
        let keyed = Fixtures.batch([
            Fixtures.track("a", extra: ",\"writeKey\":\"test-key\""), Fixtures.track("b", extra: ",\"writeKey\":\"test-key\""),
        ])
        do { let status = try await h.post(keyed, auth: nil).status; XCTAssertEqual(status, 200) }
        let oneMissing = Fixtures.batch([Fixtures.track("a", extra: ",\"writeKey\":\"test-key\""), Fixtures.track("b")])
        do { let status = try await h.post(oneMissing, auth: nil).status; XCTAssertEqual(status, 401) }
        let wrong = Fixtures.batch([Fixtures.track("a", extra: ",\"writeKey\":\"nope\"")])
        do { let status = try await h.post(wrong, auth: nil).status; XCTAssertEqual(status, 401) }
        let stats = await h.server.stats()
        XCTAssertEqual(stats.events, 2)
        XCTAssertEqual(stats.responses(401), 7)
        try await h.stop()
    }

    func testInvalidJSONAndShape() async throws {
        let h = try await Harness.start()
        do { let status = try await h.post("{\"batch\":[{]}").status; XCTAssertEqual(status, 400) }
        do { let status = try await h.post("[]").status; XCTAssertEqual(status, 400) }
        do { let status = try await h.post("{\"batch\":{}}").status; XCTAssertEqual(status, 400) }
        do { let status = try await h.post("").status; XCTAssertEqual(status, 400) }
        do { let status = try await h.post("{\"batch\":[]}").status; XCTAssertEqual(status, 200) }
        try await h.stop()
    }

    func testInvalidEventsAreDroppedAndCounted() async throws {
        let path = temporaryPath(".ndjson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let h = try await Harness.start { $0.store = .ndjson(path) }
        let events = [
            Fixtures.track("ok1"),
            "{\"type\":\"track\",\"event\":\"E\",\"messageId\":\"noid\"}",  // no identity
            "{\"type\":\"track\",\"event\":\"E\",\"userId\":\"\",\"anonymousId\":null}",  // empty identity
            "{\"type\":\"track\",\"userId\":\"u\"}",  // track without event
            "{\"type\":\"purchase\",\"userId\":\"u\"}",  // unknown type
            "{\"userId\":\"u\"}",  // no type
            "42",  // not an object
            "{\"type\":\"identify\",\"anonymousId\":\"a\",\"messageId\":\"ok2\"}",
            "{\"type\":\"alias\",\"userId\":7,\"previousId\":\"a\"}",  // numeric userId is fine
        ]
        let r = try await h.post(Fixtures.batch(events))
        XCTAssertEqual(r.status, 200)
        let stats = await h.server.stats()
        try await h.stop()
        XCTAssertEqual(stats.events, 3)
        XCTAssertEqual(stats.invalid, 6)
        XCTAssertEqual(stats.unique, 2)
        XCTAssertEqual(stats.maxBatchEvents, 9)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
    }

    func testStrictRejectsWholeRequest() async throws {
        let path = temporaryPath(".ndjson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let h = try await Harness.start {
            $0.strict = true
            $0.store = .ndjson(path)
        }
        let bad = Fixtures.batch([Fixtures.track("a"), "{\"type\":\"track\",\"userId\":\"u\"}"])
        do { let status = try await h.post(bad).status; XCTAssertEqual(status, 400) }
        do { let status = try await h.post(Fixtures.batch([Fixtures.track("b")])).status; XCTAssertEqual(status, 200) }
        let stats = await h.server.stats()
        try await h.stop()
        XCTAssertEqual(stats.events, 1)
        XCTAssertEqual(stats.invalid, 1)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count, 1)
    }

    func testLimits() async throws {
        for status in [400, 413] {
            let h = try await Harness.start { $0.oversizeStatus = status }
            // body over 500,000 bytes (made of small valid events)
            let padding = String(repeating: "x", count: 900)
            let many = (0..<600).map { Fixtures.track("m\($0)", extra: ",\"p\":\"\(padding)\"") }
            let bigBody = Fixtures.batch(many)
            XCTAssertGreaterThan(bigBody.utf8.count, 500_000)
            do { let got = try await h.post(bigBody).status; XCTAssertEqual(got, status) }
            // the same, gzipped: the limit applies after decompression
            do { let got = try await h.post(try gzip(Array(bigBody.utf8)), gzip: true).status; XCTAssertEqual(got, status) }
            // one event over 32 KiB
            let huge = Fixtures.track("h", extra: ",\"p\":\"\(String(repeating: "y", count: 33 * 1024))\"")
            do { let got = try await h.post(Fixtures.batch([huge])).status; XCTAssertEqual(got, status) }
            // just under 32 KiB is fine
            let fits = Fixtures.track("f", extra: ",\"p\":\"\(String(repeating: "y", count: 32 * 1024 - 100))\"")
            do { let status = try await h.post(Fixtures.batch([fits])).status; XCTAssertEqual(status, 200) }
            // more than 2,500 events
            let tiny = (0..<2501).map { _ in "{\"type\":\"track\",\"event\":\"E\",\"userId\":\"u\"}" }
            do { let got = try await h.post(Fixtures.batch(tiny)).status; XCTAssertEqual(got, status) }
            do { let status = try await h.post(Fixtures.batch(Array(tiny.prefix(2500)))).status; XCTAssertEqual(status, 200) }
            let stats = await h.server.stats()
            XCTAssertEqual(stats.events, 2501)
            XCTAssertEqual(stats.maxBatchEvents, 2500)
            XCTAssertEqual(stats.responses(status), 4)
            try await h.stop()
        }
    }
}
