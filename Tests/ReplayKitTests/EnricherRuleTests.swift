import Foundation
import JSONCore
import XCTest
@testable import ReplayKit

final class EnricherRuleTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testFieldsKeptExactlyAndSentAtDropped() throws {
        let id = try IdentityStore(stateDirectory: nil)
        let e = Enricher(config: try testConfig(), identity: id)
        let line = "{\"type\":\"track\",\"event\":\"E\",\"anonymousId\":\"a1\",\"messageId\":\"m-1\",\"timestamp\":\"2024-01-01T00:00:00.123456+01:00\",\"sentAt\":\"2024-01-02T00:00:00Z\",\"properties\":{\"price\":1.50e0,\"u\":\"\\u00e9\"}}"
        let r = enrich(e, line)
        guard case .event(let bytes, let key) = r else { return XCTFail("\(r)") }
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.contains("\"timestamp\":\"2024-01-01T00:00:00.123456+01:00\""), text)
        XCTAssertTrue(text.contains("\"properties\":{\"price\":1.50e0,\"u\":\"\\u00e9\"}"), text)
        XCTAssertFalse(text.contains("sentAt"))
        XCTAssertEqual(key, "a1")
        let obj = try JSONObjectView(bytes)
        XCTAssertEqual(obj["messageId"], .string("m-1"))
        XCTAssertEqual(obj["context", "library", "name"], .string("mr-replay"))
        XCTAssertEqual(obj["context", "library", "version"], .string(Enricher.libraryVersion))
        XCTAssertEqual(e.stats.sentAtDropped, 1)
    }

    /// A captured writeKey is dropped (the engine stamps the configured one): once or several
    /// times, on the direct and the duplicate-key render paths.
    func testCapturedWriteKeyIsDropped() throws {
        let id = try IdentityStore(stateDirectory: nil)
        let e = Enricher(config: try testConfig(), identity: id)
        let lines = [
            #"{"type":"track","event":"E","anonymousId":"a1","writeKey":"OLD","timestamp":"2024-01-01T00:00:00Z"}"#,
            #"{"writeKey":"OLD","type":"track","event":"E","anonymousId":"a1","writeKey":"OLD2","timestamp":"2024-01-01T00:00:00Z"}"#,
            #"{"type":"track","event":"E","anonymousId":"a1","anonymousId":"a2","writeKey":"OLD","timestamp":"2024-01-01T00:00:00Z"}"#,
        ]
        for line in lines {
            let r = enrich(e, line)
            guard case .event(let bytes, _) = r else { return XCTFail("\(r)") }
            let text = String(decoding: bytes, as: UTF8.self)
            XCTAssertFalse(text.contains("writeKey"), text)
            XCTAssertFalse(text.contains("OLD"), text)
            XCTAssertEqual(try JSONObjectView(bytes)["event"], .string("E"))
        }
        XCTAssertEqual(e.stats.writeKeysDropped, 3)
    }

    func testDeviceAnonymousIdPersistedAcrossRuns() throws {
        let a = try IdentityStore(stateDirectory: dir)
        let first = a.deviceAnonymousId
        a.close()
        XCTAssertNotNil(UUID(uuidString: first))
        XCTAssertEqual(first, first.lowercased())
        let b = try IdentityStore(stateDirectory: dir)
        XCTAssertEqual(b.deviceAnonymousId, first)
        let e = Enricher(config: try testConfig(), identity: b)
        let obj = try eventObject(enrich(e, "{\"type\":\"page\",\"timestamp\":\"2024-01-01T00:00:00Z\"}"))
        XCTAssertEqual(obj["anonymousId"], .string(first))
        XCTAssertEqual(e.stats.anonymousIdsFilled, 1)
    }

    func testStableMessageIdsDependOnlyOnBytesAndLineNumber() throws {
        let line = "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:01.500Z\"}"
        func id(_ store: IdentityStore, lineNumber: Int, sequence: UInt64) throws -> String {
            let e = Enricher(config: try testConfig(), identity: store)
            guard let m = messageId(of: enrich(e, line, lineNumber: lineNumber, sequence: sequence)) else { throw CancellationError() }
            return m
        }
        let a = try id(IdentityStore(stateDirectory: nil), lineNumber: 7, sequence: 1)
        let b = try id(IdentityStore(stateDirectory: dir), lineNumber: 7, sequence: 999)
        let c = try id(IdentityStore(stateDirectory: nil), lineNumber: 8, sequence: 1)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        XCTAssertTrue(a.hasPrefix("1704067201500-"), a)
        let uuidPart = String(a.dropFirst("1704067201500-".count))
        XCTAssertNotNil(UUID(uuidString: uuidPart))
        XCTAssertEqual(uuidPart, uuidPart.lowercased())
        XCTAssertEqual(Array(uuidPart)[14], "8")
    }

    func testStableIdsSameForPlainAndGzipFilesInAnyDirectory() throws {
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
        XCTAssertEqual(plain.count, 50)
        XCTAssertEqual(Set(plain).count, 50)
        XCTAssertEqual(try ids(gz), plain)
        XCTAssertEqual(try ids(dir + "/x.ndjson"), plain)
    }

    func testDefaultTimestampNowUsesInjectedClock() throws {
        let e = Enricher(
            config: try testConfig("enrichment:\n  default_timestamp: now\n"), identity: try IdentityStore(stateDirectory: nil),
            nowMillis: { 1_700_000_000_123 })
        let r = enrich(e, "{\"type\":\"page\",\"anonymousId\":\"a\"}")
        guard case .event(let bytes, _) = r else { return XCTFail("\(r)") }
        XCTAssertEqual(try JSONObjectView(bytes)["timestamp"], .string("2023-11-14T22:13:20.123Z"))
        guard case .string(let m)? = try JSONObjectView(bytes)["messageId"] else { return XCTFail("no messageId") }
        XCTAssertTrue(m.hasPrefix("1700000000123-"), m)
        XCTAssertEqual(e.stats.timestampsDefaulted, 1)
    }

    func testContextDefaultsFillOnlyMissing() throws {
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
        let obj = try eventObject(enrich(e, "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\",\"context\":{\"app\":{\"name\":\"mine\"},\"locale\":\"fr-FR\",\"library\":{\"name\":\"old\"}}}"))
        XCTAssertEqual(obj["context", "app", "name"], .string("mine"))
        XCTAssertEqual(obj["context", "app", "version"], .string("9"))
        XCTAssertEqual(obj["context", "device", "model"], .string("M1"))
        XCTAssertEqual(obj["context", "os", "name"], .string("iOS"))
        XCTAssertEqual(obj["context", "locale"], .string("fr-FR"))
        XCTAssertEqual(obj["context", "timezone"], .string("UTC"))
        XCTAssertEqual(obj["context", "library", "name"], .string("old"), "the event's own library is kept")
        let bare = try eventObject(enrich(e, "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}"))
        XCTAssertEqual(bare["context", "app", "name"], .string("cfg-app"))
        XCTAssertEqual(bare["context", "locale"], .string("en-US"))
    }

    func testAdvertisingIdRules() throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        let good = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
        func adId(_ device: String, extra: String = "") throws -> JSONValue? {
            let line = "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\",\"context\":{\"device\":\(device)\(extra)}}"
            return try eventObject(enrich(e, line))["context", "device", "advertisingId"]
        }
        XCTAssertEqual(try adId("{\"advertisingId\":\"\(good)\"}"), .string(good))
        XCTAssertEqual(try adId("{\"advertisingId\":\"\(good)\",\"adTrackingEnabled\":true,\"trackingStatus\":\"authorized\"}"), .string(good))
        XCTAssertNil(try adId("{\"advertisingId\":\"00000000-0000-0000-0000-000000000000\"}"))
        XCTAssertNil(try adId("{\"advertisingId\":\"not-a-uuid\"}"))
        XCTAssertNil(try adId("{\"advertisingId\":\"\(good)\",\"adTrackingEnabled\":false}"))
        XCTAssertNil(try adId("{\"advertisingId\":\"\(good)\",\"trackingStatus\":\"denied\"}"))
        XCTAssertNil(try adId("{\"advertisingId\":\"\(good)\"}", extra: ",\"att_status\":\"restricted\""))
        XCTAssertEqual(e.stats.advertisingIdsRemoved, 5)
    }

    func testDropProperties() throws {
        let e = Enricher(config: try testConfig("privacy:\n  drop_properties: [email, phone]\n"), identity: try IdentityStore(stateDirectory: nil))
        let obj = try eventObject(enrich(e, "{\"type\":\"identify\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\",\"traits\":{\"email\":\"x@y\",\"plan\":\"pro\"},\"properties\":{\"phone\":\"1\",\"email\":\"e\"},\"context\":{\"traits\":{\"email\":\"z\"}}}"))
        XCTAssertNil(obj["traits", "email"])
        XCTAssertEqual(obj["traits", "plan"], .string("pro"))
        XCTAssertEqual(obj["properties"], .object(JSONObject()))
        XCTAssertNil(obj["context", "traits", "email"])
        XCTAssertEqual(e.stats.propertiesDropped, 4)
    }
}
