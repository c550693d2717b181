import Foundation
import JSONCore
import XCTest
@testable import ReplayKit

/// Lines prepared on worker threads must give exactly what in-order enrichment gives.
final class ParallelWalkTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// Lines that exercise carry-forward into absent, null and empty members, duplicate keys,
    /// learning, every kind of rejection, blank lines, and identities reused across chunks.
    func makeFile(lines: Int, seed: UInt64) throws -> String {
        var rng = SeededRandom(state: seed)
        var out = ""
        func anon() -> String { "\"anon-\(Int.random(in: 0..<40, using: &rng))\"" }
        func user() -> String { "\"user-\(Int.random(in: 0..<25, using: &rng))\"" }
        let ts = "\"timestamp\":\"2025-03-04T05:06:07.089Z\""
        for _ in 0..<lines {
            let line: String
            switch Int.random(in: 0..<14, using: &rng) {
            case 0: line = "{\"type\":\"identify\",\"anonymousId\":\(anon()),\"userId\":\(user()),\(ts)}"
            case 1: line = "{\"type\":\"group\",\"userId\":\(user()),\"groupId\":\"g-\(Int.random(in: 0..<9, using: &rng))\",\(ts)}"
            case 2: line = "{\"type\":\"track\",\"event\":\"E\",\"anonymousId\":\(anon()),\(ts)}"
            case 3: line = "{\"userId\":null,\"type\":\"track\",\"event\":\"E\",\"anonymousId\":\(anon()),\(ts),\"groupId\":null}"
            case 4: line = "{\"type\":\"page\",\"groupId\":\"\",\"anonymousId\":\(anon()),\(ts),\"userId\":\"\",\"context\":{\"locale\":\"fr\"}}"
            case 5: line = "{\"type\":\"track\",\"event\":\"Dup\",\"userId\":null,\"anonymousId\":\(anon()),\(ts),\"userId\":null}"
            case 6: line = "{\"type\":\"alias\",\"anonymousId\":\(anon()),\"userId\":\(user()),\"previousId\":\"p\",\(ts)}"
            case 7: line = "{\"type\":\"screen\",\"name\":\"S\",\(ts),\"messageId\":\"m\"}"
            case 8: line = "{\"type\":\"track\",\"event\":\"E\",\"userId\":\(user()),\(ts)}"
            case 9: line = "   "
            case 10: line = "{\"type\":\"track\",\"anonymousId\":\(anon()),\(ts)}"
            case 11: line = "{\"type\":\"identify\",\"anonymousId\":\(anon()),\(ts),\"context\":7}"
            case 12: line = "{not json"
            default: line = "{\"type\":\"group\",\"groupId\":\"g-x\",\"anonymousId\":\(anon()),\(ts)}"
            }
            out += line + "\n"
        }
        let path = dir + "/lines-\(seed).ndjson"
        try out.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    struct Walked: Equatable {
        var results: [EnrichResult] = []
        var sequences: [UInt64] = []
        var lineNumbers: [Int] = []
        var stats = EnrichStats()
        var learned = 0
    }

    func walk(_ path: String, workers: Int, stopAfter: Int? = nil) throws -> Walked {
        let config = try testConfig("privacy:\n  drop_properties: [email]\n", stateDir: dir + "/state")
        let identity = try IdentityStore(stateDirectory: nil, makeUUID: { "00000000-0000-4000-8000-000000000001" })
        let enricher = Enricher(config: config, identity: identity, nowMillis: { 1_700_000_000_000 })
        var w = Walked()
        try LineWalker.walk(inputs: [InputSource(path: path, kind: .ndjson)], config: config, enricher: enricher, workers: workers) {
            item in
            w.results.append(item.result)
            w.sequences.append(item.sequence)
            w.lineNumbers.append(item.line.lineNumber)
            return stopAfter.map { w.results.count < $0 } ?? true
        }
        w.stats = enricher.stats
        w.learned = identity.uncommittedCount
        return w
    }

    func testWorkersGiveTheSameResultsAsInOrderEnrichment() throws {
        let path = try makeFile(lines: 3000, seed: 11)
        let inOrder = try walk(path, workers: 0)
        XCTAssertEqual(inOrder.results.count, 3000)
        XCTAssertGreaterThan(inOrder.stats.userIdsCarried, 100)
        XCTAssertGreaterThan(inOrder.stats.groupIdsCarried, 50)
        XCTAssertGreaterThan(inOrder.stats.invalid, 100)
        for workers in [1, 3] {
            let parallel = try walk(path, workers: workers)
            XCTAssertEqual(parallel.results.count, inOrder.results.count)
            for (k, (a, b)) in zip(inOrder.results, parallel.results).enumerated() where a != b {
                XCTFail("line \(k + 1) differs with \(workers) workers:\n\(a)\n\(b)")
                break
            }
            XCTAssertEqual(parallel, inOrder, "workers: \(workers)")
        }
    }

    func testCarriedValuesLandWhereInOrderEditsPutThem() throws {
        let path = dir + "/carry.ndjson"
        try """
        {"type":"identify","anonymousId":"a1","userId":"u1","timestamp":"2025-01-01T00:00:00Z"}
        {"type":"group","userId":"u1","groupId":"g1","timestamp":"2025-01-01T00:00:00Z"}
        {"userId":null,"type":"track","event":"E","anonymousId":"a1","timestamp":"2025-01-01T00:00:00Z","groupId":""}
        {"type":"track","event":"E","anonymousId":"a1","timestamp":"2025-01-01T00:00:00Z","messageId":"m"}

        """.write(toFile: path, atomically: true, encoding: .utf8)
        let parallel = try walk(path, workers: 2)
        guard case .event(let third, _, _) = parallel.results[2], case .event(let fourth, _, _) = parallel.results[3] else {
            return XCTFail("expected events: \(parallel.results)")
        }
        let text = String(decoding: third, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("{\"userId\":\"u1\",\"type\":\"track\""), text)
        XCTAssertTrue(text.contains("\"groupId\":\"g1\""), text)
        let fourthText = String(decoding: fourth, as: UTF8.self)
        XCTAssertTrue(fourthText.contains("\"messageId\":\"m\",\"userId\":\"u1\",\"groupId\":\"g1\""), fourthText)
        XCTAssertEqual(try walk(path, workers: 0), parallel)
    }

    func testStoppingEarlyLearnsOnlyFromDeliveredLines() throws {
        let path = try makeFile(lines: 2500, seed: 5)
        let inOrder = try walk(path, workers: 0, stopAfter: 1234)
        let parallel = try walk(path, workers: 2, stopAfter: 1234)
        XCTAssertEqual(parallel.results.count, 1234)
        XCTAssertEqual(parallel, inOrder)
    }
}
