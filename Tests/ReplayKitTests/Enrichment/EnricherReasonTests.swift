import Foundation
import ReplayKit
import Testing

struct EnricherReasonTests {
    let enricher: Enricher
    let identity: IdentityStore

    init() throws {
        identity = try IdentityStore(stateDirectory: nil)
        enricher = Enricher(config: try testConfig("batching:\n  max_event_bytes: 200\n"), identity: identity)
    }

    static let ts = "\"timestamp\":\"2024-01-01T00:00:00Z\""

    /// Lines and the reason each is dead-lettered for (nil: it becomes an event).
    static let reasonCases: [(String, String?)] = [
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

    @Test(arguments: reasonCases)
    func reasonOfLine(line: String, want: String?) {
        let r = enrich(enricher, line)
        if let want {
            #expect(reason(r) == want, "\(line)")
        } else {
            #expect(r.isEvent, "expected an event for \(line), got \(r)")
        }
    }

    @Test func reasonsAreCounted() {
        for (line, _) in Self.reasonCases { _ = enrich(enricher, line) }
        #expect(enricher.stats.deadLetters["invalid_alias"] == 3)
        #expect(enricher.stats.events == 3)
    }

    @Test(arguments: [
        "{\"type\":\"page\",\(ts),\"context\":{\"consent\":{\"isUserSubjectToGDPR\":true,\"hasConsentForDataUsage\":false}}}",
        "{\"type\":\"page\",\(ts),\"context\":{\"consent\":{\"isUserSubjectToGDPR\":true}}}",
    ])
    func consentDenialIsSkippedNotDeadLettered(line: String) {
        #expect(enrich(enricher, line) == .skipped(.consentDropped), "\(line)")
        #expect(enricher.stats.skipped == ["consent_dropped": 1])
        #expect(enricher.stats.invalid == 0)
    }

    @Test func invalidUTF8() {
        let bytes = Array("{\"type\":\"page\",\"name\":\"".utf8) + [0xFF, 0xFE] + Array("\",\(Self.ts)}".utf8)
        let r = bytes.withUnsafeBufferPointer { enricher.process($0, lineNumber: 1, sequence: 1) }
        #expect(reason(r) == "invalid_utf8")
        let outside: [UInt8] = [0xC3, 0x28, 0x7B]
        let r2 = outside.withUnsafeBufferPointer { enricher.process($0, lineNumber: 1, sequence: 1) }
        #expect(reason(r2) == "invalid_utf8")
    }

    @Test func blankLinesAreCountedNotDeadLettered() {
        #expect(enrich(enricher, "") == .blank)
        #expect(enrich(enricher, "  \t\r") == .blank)
        #expect(enricher.stats.blank == 2)
        #expect(enricher.stats.invalid == 0)
    }

    @Test(arguments: [
        ("track", ",\"event\":\"E\""), ("identify", ""), ("page", ""), ("screen", ""), ("group", ",\"groupId\":\"g\""),
        ("alias", ",\"userId\":\"u\",\"previousId\":\"p\""),
    ])
    func allTypesAccepted(type: String, extra: String) {
        let r = enrich(enricher, "{\"type\":\"\(type)\"\(extra),\(Self.ts)}")
        #expect(r.isEvent, "\(type): \(r)")
    }
}
