import Foundation
import XCTest
@testable import ReplayKit

final class EnricherReasonTests: XCTestCase {
    var enricher: Enricher!
    var identity: IdentityStore!

    override func setUpWithError() throws {
        identity = try IdentityStore(stateDirectory: nil)
        enricher = Enricher(config: try testConfig("batching:\n  max_event_bytes: 200\n"), identity: identity)
    }

    let ts = "\"timestamp\":\"2024-01-01T00:00:00Z\""

    func testEveryReason() {
        let cases: [(String, String?)] = [
            ("{\"type\":\"track\",", "invalid_json"),
            ("[1,2,3]", "not_an_object"),
            ("\"text\"", "not_an_object"),
            ("{\"event\":\"x\",\(ts)}", "missing_type"),
            ("{\"type\":5,\(ts)}", "missing_type"),
            ("{\"type\":\"purchase\",\(ts)}", "unknown_type"),
            ("{\"type\":\"track\",\(ts)}", "missing_event_name"),
            ("{\"type\":\"track\",\"event\":\"\",\(ts)}", "missing_event_name"),
            ("{\"type\":\"group\",\(ts)}", "missing_group_id"),
            ("{\"type\":\"page\"}", "missing_timestamp"),
            ("{\"type\":\"page\",\"timestamp\":\"yesterday\"}", "invalid_timestamp"),
            ("{\"type\":\"page\",\(ts),\"p\":\"\(String(repeating: "x", count: 200))\"}", "too_large"),
            ("{\"type\":\"alias\",\(ts),\"userId\":\"u\"}", "invalid_alias"),
            ("{\"type\":\"alias\",\(ts),\"previousId\":\"p\"}", "invalid_alias"),
            ("{\"type\":\"alias\",\(ts),\"previousId\":\"\",\"userId\":\"u\"}", "invalid_alias"),
            ("{\"type\":\"page\",\(ts),\"context\":[]}", "invalid_context"),
            ("{\"type\":\"page\",\(ts),\"context\":{\"device\":\"phone\"}}", "invalid_context"),
            ("{\"type\":\"page\",\(ts),\"context\":{\"os\":[1]}}", "invalid_context"),
            ("{\"type\":\"page\",\(ts),\"context\":{\"app\":null,\"os\":{}}}", nil),
            ("{\"type\":\"page\",\(ts),\"context\":{\"consent\":{\"isUserSubjectToGDPR\":true,\"hasConsentForDataUsage\":true}}}", nil),
            ("{\"type\":\"page\",\(ts),\"context\":{\"consent\":{\"isUserSubjectToGDPR\":false}}}", nil),
        ]
        for (line, want) in cases {
            let r = enrich(enricher, line)
            if let want {
                XCTAssertEqual(reason(r), want, line)
            } else if case .event = r {} else {
                XCTFail("expected event for \(line), got \(r)")
            }
        }
        XCTAssertEqual(enricher.stats.deadLetters["invalid_alias"], 3)
        XCTAssertEqual(enricher.stats.events, 3)
    }

    func testConsentDenialIsSkippedNotDeadLettered() {
        for line in [
            "{\"type\":\"page\",\(ts),\"context\":{\"consent\":{\"isUserSubjectToGDPR\":true,\"hasConsentForDataUsage\":false}}}",
            "{\"type\":\"page\",\(ts),\"context\":{\"consent\":{\"isUserSubjectToGDPR\":true}}}",
        ] {
            XCTAssertEqual(enrich(enricher, line), .skipped(.consentDropped), line)
        }
        XCTAssertEqual(enricher.stats.skipped, ["consent_dropped": 2])
        XCTAssertEqual(enricher.stats.invalid, 0)
    }

    func testInvalidUTF8() {
        var bytes = Array("{\"type\":\"page\",\"name\":\"".utf8) + [0xFF, 0xFE] + Array("\",\(ts)}".utf8)
        let r = bytes.withUnsafeMutableBufferPointer { enricher.process(UnsafeBufferPointer($0), lineNumber: 1, sequence: 1) }
        XCTAssertEqual(reason(r), "invalid_utf8")
        var outside: [UInt8] = [0xC3, 0x28, 0x7B]
        let r2 = outside.withUnsafeMutableBufferPointer { enricher.process(UnsafeBufferPointer($0), lineNumber: 1, sequence: 1) }
        XCTAssertEqual(reason(r2), "invalid_utf8")
    }

    func testBlankLinesAreCountedNotDeadLettered() {
        XCTAssertEqual(enrich(enricher, ""), .blank)
        XCTAssertEqual(enrich(enricher, "  \t\r"), .blank)
        XCTAssertEqual(enricher.stats.blank, 2)
        XCTAssertEqual(enricher.stats.invalid, 0)
    }

    func testAllTypesAccepted() {
        for (type, extra) in [("track", ",\"event\":\"E\""), ("identify", ""), ("page", ""), ("screen", ""), ("group", ",\"groupId\":\"g\""), ("alias", ",\"userId\":\"u\",\"previousId\":\"p\"")] {
            let r = enrich(enricher, "{\"type\":\"\(type)\"\(extra),\(ts)}")
            guard case .event = r else { return XCTFail("\(type): \(r)") }
        }
    }
}
