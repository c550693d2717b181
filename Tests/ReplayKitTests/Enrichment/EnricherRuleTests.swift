import Foundation
import JSONCore
import ReplayKit
import TestSupport
import Testing

final class EnricherRuleTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    @Test func fieldsKeptExactlyAndSentAtDropped() throws {
        let id = try IdentityStore(stateDirectory: nil)
        let e = Enricher(config: try testConfig(), identity: id)
        let line =
            "{\"type\":\"track\",\"event\":\"E\",\"anonymousId\":\"a1\",\"messageId\":\"m-1\",\"timestamp\":\"2024-01-01T00:00:00.123456+01:00\",\"sentAt\":\"2024-01-02T00:00:00Z\",\"properties\":{\"price\":1.50e0,\"u\":\"\\u00e9\"}}"
        let r = enrich(e, line)
        guard case .event(let event) = r, case let (bytes, key) = (event.bytes, event.orderingKey) else {
            Issue.record("\(r)")
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\"timestamp\":\"2024-01-01T00:00:00.123456+01:00\""), "\(text)")
        #expect(text.contains("\"properties\":{\"price\":1.50e0,\"u\":\"\\u00e9\"}"), "\(text)")
        #expect(!text.contains("sentAt"))
        #expect(key == "a1")
        let obj = try JSONObjectView(bytes)
        #expect(obj["messageId"] == .string("m-1"))
        #expect(obj["context", "library", "name"] == .string("mr-replay"))
        #expect(obj["context", "library", "version"] == .string(ReplayConfig.toolVersion))
        #expect(e.stats.sentAtDropped == 1)
    }

    /// A captured writeKey is dropped (the engine stamps the configured one): once or several
    /// times, on the direct and the duplicate-key render paths.
    @Test(arguments: [
        #"{"type":"track","event":"E","anonymousId":"a1","writeKey":"OLD","timestamp":"2024-01-01T00:00:00Z"}"#,
        #"{"writeKey":"OLD","type":"track","event":"E","anonymousId":"a1","writeKey":"OLD2","timestamp":"2024-01-01T00:00:00Z"}"#,
        #"{"type":"track","event":"E","anonymousId":"a1","anonymousId":"a2","writeKey":"OLD","timestamp":"2024-01-01T00:00:00Z"}"#,
    ])
    func capturedWriteKeyIsDropped(line: String) throws {
        let id = try IdentityStore(stateDirectory: nil)
        let e = Enricher(config: try testConfig(), identity: id)
        let bytes = try #require(enrichedBytes(enrich(e, line)))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("writeKey"), "\(text)")
        #expect(!text.contains("OLD"), "\(text)")
        #expect(try JSONObjectView(bytes)["event"] == .string("E"))
        #expect(e.stats.writeKeysDropped == 1)
    }

    @Test func deviceAnonymousIdPersistedAcrossRuns() throws {
        let a = try IdentityStore(stateDirectory: dir)
        let first = a.deviceAnonymousId
        a.close()
        #expect(UUID(uuidString: first) != nil)
        #expect(first == first.lowercased())
        let b = try IdentityStore(stateDirectory: dir)
        #expect(b.deviceAnonymousId == first)
        let e = Enricher(config: try testConfig(), identity: b)
        let obj = try eventObject(enrich(e, "{\"type\":\"page\",\"timestamp\":\"2024-01-01T00:00:00Z\"}"))
        #expect(obj["anonymousId"] == .string(first))
        #expect(e.stats.anonymousIdsFilled == 1)
    }

    @Test func stableMessageIdsDependOnlyOnBytesAndLineNumber() throws {
        let line = "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:01.500Z\"}"
        func id(_ store: IdentityStore, lineNumber: Int, sequence: UInt64) throws -> String {
            let e = Enricher(config: try testConfig(), identity: store)
            guard let m = messageId(of: enrich(e, line, lineNumber: lineNumber, sequence: sequence)) else { throw CancellationError() }
            return m
        }
        let a = try id(IdentityStore(stateDirectory: nil), lineNumber: 7, sequence: 1)
        let b = try id(IdentityStore(stateDirectory: dir), lineNumber: 7, sequence: 999)
        let c = try id(IdentityStore(stateDirectory: nil), lineNumber: 8, sequence: 1)
        #expect(a == b)
        #expect(a != c)
        #expect(a.hasPrefix("1704067201500-"), "\(a)")
        let uuidPart = String(a.dropFirst("1704067201500-".count))
        #expect(UUID(uuidString: uuidPart) != nil)
        #expect(uuidPart == uuidPart.lowercased())
        #expect(Array(uuidPart)[14] == "8")
    }

    @Test func stableIdsSameForPlainAndGzipFilesInAnyDirectory() throws {
        var text = ""
        for i in 0..<50 { text += "{\"type\":\"track\",\"event\":\"E\(i)\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}\n" }
        try writeFile(dir + "/x.ndjson", text)
        try FileManager.default.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
        let gz = try gzipFile(dir + "/x.ndjson", to: dir + "/elsewhere/renamed.gz")
        func ids(_ path: String) throws -> [String] {
            let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
            var out: [String] = []
            try LineWalker.walk(inputs: [InputSource(path: path, kind: .ndjson)], config: try testConfig(), enricher: e) { item in
                if let m = messageId(of: item.result) { out.append(m) }
                return true
            }
            return out
        }
        let plain = try ids(dir + "/x.ndjson")
        #expect(plain.count == 50)
        #expect(Set(plain).count == 50)
        #expect(try ids(gz) == plain)
        #expect(try ids(dir + "/x.ndjson") == plain)
    }

    @Test func defaultTimestampNowUsesInjectedClock() throws {
        let e = Enricher(
            config: try testConfig("enrichment:\n  default_timestamp: now\n"), identity: try IdentityStore(stateDirectory: nil),
            nowMillis: { 1_700_000_000_123 })
        let r = enrich(e, "{\"type\":\"page\",\"anonymousId\":\"a\"}")
        guard case .event(let event) = r, case let bytes = event.bytes else {
            Issue.record("\(r)")
            return
        }
        #expect(try JSONObjectView(bytes)["timestamp"] == .string("2023-11-14T22:13:20.123Z"))
        guard case .string(let m)? = try JSONObjectView(bytes)["messageId"] else {
            Issue.record("no messageId")
            return
        }
        #expect(m.hasPrefix("1700000000123-"), "\(m)")
        #expect(e.stats.timestampsDefaulted == 1)
    }

    @Test func contextDefaultsFillOnlyMissing() throws {
        let yaml = """
            enrichment:
              context:
                app: { name: cfg-app, version: "9" }
                device: { manufacturer: Acme, model: M1 }
                os: { name: iOS }
                locale: en-US
                timezone: UTC
            """
        let e = Enricher(config: try testConfig(yaml), identity: try IdentityStore(stateDirectory: nil))
        let obj = try eventObject(
            enrich(
                e,
                "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\",\"context\":{\"app\":{\"name\":\"mine\"},\"locale\":\"fr-FR\",\"library\":{\"name\":\"old\"}}}"
            ))
        #expect(obj["context", "app", "name"] == .string("mine"))
        #expect(obj["context", "app", "version"] == .string("9"))
        #expect(obj["context", "device", "model"] == .string("M1"))
        #expect(obj["context", "os", "name"] == .string("iOS"))
        #expect(obj["context", "locale"] == .string("fr-FR"))
        #expect(obj["context", "timezone"] == .string("UTC"))
        #expect(obj["context", "library", "name"] == .string("old"), "the event's own library is kept")
        let bare = try eventObject(enrich(e, "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}"))
        #expect(bare["context", "app", "name"] == .string("cfg-app"))
        #expect(bare["context", "locale"] == .string("en-US"))
    }

    @Test func advertisingIdRules() throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        let good = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
        func adId(_ device: String, extra: String = "") throws -> JSONValue? {
            let line = "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\",\"context\":{\"device\":\(device)\(extra)}}"
            return try eventObject(enrich(e, line))["context", "device", "advertisingId"]
        }
        #expect(try adId("{\"advertisingId\":\"\(good)\"}") == .string(good))
        #expect(try adId("{\"advertisingId\":\"\(good)\",\"adTrackingEnabled\":true,\"trackingStatus\":\"authorized\"}") == .string(good))
        #expect(try adId("{\"advertisingId\":\"00000000-0000-0000-0000-000000000000\"}") == nil)
        #expect(try adId("{\"advertisingId\":\"not-a-uuid\"}") == nil)
        #expect(try adId("{\"advertisingId\":\"\(good)\",\"adTrackingEnabled\":false}") == nil)
        #expect(try adId("{\"advertisingId\":\"\(good)\",\"trackingStatus\":\"denied\"}") == nil)
        #expect(try adId("{\"advertisingId\":\"\(good)\"}", extra: ",\"att_status\":\"restricted\"") == nil)
        #expect(e.stats.advertisingIdsRemoved == 5)
    }

    @Test func dropProperties() throws {
        let e = Enricher(config: try testConfig("privacy:\n  drop_properties: [email, phone]\n"), identity: try IdentityStore(stateDirectory: nil))
        let obj = try eventObject(
            enrich(
                e,
                "{\"type\":\"identify\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\",\"traits\":{\"email\":\"x@y\",\"plan\":\"pro\"},\"properties\":{\"phone\":\"1\",\"email\":\"e\"},\"context\":{\"traits\":{\"email\":\"z\"}}}"
            ))
        #expect(obj["traits", "email"] == nil)
        #expect(obj["traits", "plan"] == .string("pro"))
        #expect(obj["properties"] == .object(JSONObject()))
        #expect(obj["context", "traits", "email"] == nil)
        #expect(e.stats.propertiesDropped == 4)
    }
}
