import Collector
import Foundation
import ServerTestHarness
import ServerTesting
import Testing

/// The full collector's own checks: a write key in the body, JSON and event validity, strict mode.
@Suite struct ValidationTests {
    static let keyed = Fixtures.track("a", extra: ",\"writeKey\":\"test-key\"")

    /// (body, Authorization header, expected status)
    static let authenticationCases: [(String, String?, Int)] = [
        (Fixtures.batch([Fixtures.track("a")]), nil, 401),
        (Fixtures.batch([Fixtures.track("a")]), basic("other"), 401),
        (Fixtures.batch([Fixtures.track("a")]), basic(password: "secret"), 401),
        (Fixtures.batch([Fixtures.track("a")]), "Bearer test-key", 401),
        ("not json", nil, 401),
        (Fixtures.batch([keyed, Fixtures.track("b", extra: ",\"writeKey\":\"test-key\"")]), nil, 200),
        (Fixtures.batch([keyed, Fixtures.track("b")]), nil, 401),
        (Fixtures.batch([Fixtures.track("a", extra: ",\"writeKey\":\"nope\"")]), nil, 401),
        (Fixtures.batch([Fixtures.track("a")]), basic(), 200),
    ]

    @Test(arguments: authenticationCases)
    func authentication(body: String, auth: String?, status: Int) async throws {
        try await Harness.run { h in
            let r = try await h.post(body, auth: auth)
            let stats = h.server.stats()
            await h.stop()
            #expect(r.status == status, "\(r.body)")
            #expect(stats.responses(status) == 1)
            #expect(stats.events == (status == 200 ? stats.maxBatchEvents : 0))
        }
    }

    @Test(arguments: [("{\"batch\":[{]}", 400), ("[]", 400), ("{\"batch\":{}}", 400), ("", 400), ("{\"batch\":[]}", 200)])
    func invalidJSONAndShape(body: String, status: Int) async throws {
        try await Harness.run { h in
            let r = try await h.post(body)
            await h.stop()
            #expect(r.status == status, "\(r.body)")
        }
    }

    @Test func invalidEventsAreDroppedAndCounted() async throws {
        let path = temporaryPath(".ndjson")
        defer { removeStoreFiles(path) }
        try await Harness.run {
            $0.store = .ndjson(path)
        } body: { h in
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
            #expect(r.status == 200)
            let stats = h.server.stats()
            await h.stop()
            #expect(stats.events == 3)
            #expect(stats.invalid == 6)
            #expect(stats.unique == 2)
            #expect(stats.maxBatchEvents == 9)
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 3)
        }
    }

    @Test func strictRejectsWholeRequest() async throws {
        let path = temporaryPath(".ndjson")
        defer { removeStoreFiles(path) }
        try await Harness.run {
            $0.strict = true
            $0.store = .ndjson(path)
        } body: { h in
            let bad = Fixtures.batch([Fixtures.track("a"), "{\"type\":\"track\",\"userId\":\"u\"}"])
            let refused = try await h.post(bad).status
            let accepted = try await h.post(Fixtures.batch([Fixtures.track("b")])).status
            let stats = h.server.stats()
            await h.stop()
            #expect([refused, accepted] as [Int] == [400, 200])
            #expect(stats.events == 1)
            #expect(stats.invalid == 1)
            #expect(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count == 1)
        }
    }

    /// What is just inside the limits passes (the refusals are in ``SharedChecksTests``).
    @Test func justInsideTheLimits() async throws {
        try await Harness.run { h in
            let fits = Fixtures.track("f", extra: ",\"p\":\"\(String(repeating: "y", count: 32 * 1024 - 100))\"")
            let oneBig = try await h.post(Fixtures.batch([fits])).status
            let tiny = (0..<2500).map { _ in "{\"type\":\"track\",\"event\":\"E\",\"userId\":\"u\"}" }
            let many = try await h.post(Fixtures.batch(tiny)).status
            let stats = h.server.stats()
            await h.stop()
            #expect([oneBig, many] as [Int] == [200, 200])
            #expect(stats.events == 2501)
            #expect(stats.maxBatchEvents == 2500)
        }
    }
}
