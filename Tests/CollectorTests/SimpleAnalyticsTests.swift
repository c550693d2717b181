import Collector
import Foundation
import JSONCore
import ServerTestHarness
import ServerTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A submission built and sent the way the SimpleAnalytics Swift package sends one: its
/// Encodable shapes (device fields once at the top level; `timestamp` an ISO 8601 string in the
/// device's zone; `parameters` left out when nil), Foundation's `JSONEncoder` with its defaults,
/// and a `URLSession` POST with only `Content-Type: application/json`.
struct PackageStyleSubmission: Encodable {
    struct Item: Encodable {
        let description: String
        let timestamp: Date
        let parameters: [String: String]?
        let zone: TimeZone

        enum CodingKeys: String, CodingKey { case description, timestamp, parameters }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(description, forKey: .description)
            try c.encode(PackageStyleSubmission.iso(timestamp, zone), forKey: .timestamp)
            if let parameters { try c.encode(parameters, forKey: .parameters) }
        }
    }

    struct Counter: Encodable {
        let name: String
        let count: Int
        let timestamp: Date
        let zone: TimeZone

        enum CodingKeys: String, CodingKey { case name, count, timestamp }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(count, forKey: .count)
            try c.encode(PackageStyleSubmission.iso(timestamp, zone), forKey: .timestamp)
        }
    }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", appName = "app_name", appVersion = "app_version"
        case systemVersion = "system_version", platform, items, counters
    }

    let deviceID: String
    let appName: String
    let appVersion: String
    let systemVersion: String
    let platform: String
    let items: [Item]
    let counters: [Counter]

    static func iso(_ date: Date, _ zone: TimeZone) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = zone
        return formatter.string(from: date)
    }

    /// The encoded body.
    func body() throws -> Data { try JSONEncoder().encode(self) }

    /// POSTs `body` to `url` as the package does; returns the status and the answer's bytes.
    static func post(_ body: Data, to url: String) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession(configuration: .default).data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// What the package decodes from a 2xx answer.
    struct Answer: Decodable { let message: String }

    static let newYork = TimeZone(identifier: "America/New_York")!

    /// Two items (one with parameters) and a counter, on an iPhone in New York.
    static func sample(device: String = "device-A") -> PackageStyleSubmission {
        let t = Date(timeIntervalSince1970: 1_795_443_304)  // 2026-11-23T09:15:04-05:00
        return PackageStyleSubmission(
            deviceID: device, appName: "Demo App", appVersion: "3.1", systemVersion: "18.1", platform: "iOS (iPhone)",
            items: [
                Item(description: "Logged in", timestamp: t, parameters: ["method": "password", "path": "a/b"], zone: newYork),
                Item(description: "Opened settings", timestamp: t.addingTimeInterval(5), parameters: nil, zone: newYork),
            ],
            counters: [Counter(name: "Foregrounded app", count: 3, timestamp: t.addingTimeInterval(-60), zone: newYork)])
    }
}

@Suite struct SimpleAnalyticsEndpointTests {
    @Test func aPayloadPostedLikeThePackageIsStoredOnOneLineAndAnsweredWithAMessage() async throws {
        let dir = temporaryPath("-sa")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await Harness.run {
            $0.store = .ndjson(dir + "/events.ndjson")
        } body: { h in
            let body = try PackageStyleSubmission.sample().body()
            let (status, answer) = try await PackageStyleSubmission.post(body, to: h.base + "/simpleanalytics")
            #expect(status == 200)
            let message = try JSONDecoder().decode(PackageStyleSubmission.Answer.self, from: answer).message
            #expect(message == "stored 2 items and 1 counter")
            let stats = h.server.stats()
            await h.stop()
            #expect(stats.responses(200) == 1)
            #expect(stats.events == 0, "payloads are not Segment events")

            // Next to the events store, byte for byte as sent, one line.
            let stored = try Data(contentsOf: URL(fileURLWithPath: dir + "/events.simpleanalytics.ndjson"))
            #expect(stored == body + Data([0x0A]))
            #expect(String(decoding: body, as: UTF8.self).contains("-05:00"), "the package writes the device's zone")
            let events = (try? String(contentsOfFile: dir + "/events.ndjson", encoding: .utf8)) ?? ""
            #expect(events.isEmpty)
        }
    }

    @Test func aPrettyPrintedPayloadIsStoredCompactlyOnItsOwnLine() async throws {
        let path = temporaryPath(".ndjson")
        defer { removeStoreFiles(path) }
        try await Harness.run {
            $0.simpleAnalyticsStore = path
        } body: { h in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let pretty = try encoder.encode(PackageStyleSubmission.sample())
            let first = try await PackageStyleSubmission.post(pretty, to: h.base + "/simpleanalytics")
            let second = try await PackageStyleSubmission.post(
                try PackageStyleSubmission.sample(device: "device-B").body(), to: h.base + "/simpleanalytics/")
            await h.stop()
            #expect(first.status == 200)
            #expect(second.status == 200)
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 3 && lines[2].isEmpty, "two lines, each ended")
            #expect(try JSONValue(parsing: String(lines[0])) == JSONValue(parsing: pretty))
            #expect(lines[1].contains("device-B"))
        }
    }

    static let malformed: [(body: String, field: String)] = [
        ("not json", "body"),
        (#"{"items": 5}"#, "items"),
        ("{}", "body"),
        (#"{"items": [{"timestamp": "2026-11-23T09:15:04-05:00"}], "counters": []}"#, "items[0].description"),
        (#"{"items": [{"description": "A", "timestamp": "2026-11-23T09:15:04"}], "counters": []}"#, "items[0].timestamp"),
        (
            #"{"items": [{"description": "A", "timestamp": "2026-11-23T09:15:04Z", "parameters": {"n": 1}}]}"#,
            "items[0].parameters.n"
        ),
        (
            #"{"items": [], "counters": [{"name": "C", "count": "3", "timestamp": "2026-11-23T09:15:04Z"}]}"#,
            "counters[0].count"
        ),
        (#"{"device_id": 7, "items": [], "counters": []}"#, "device_id"),
        (
            #"{"items": [], "counters": [{"name": "C", "count": 1, "timestamp": "2026-11-23T09:15:04Z", "app_name": false}]}"#,
            "counters[0].app_name"
        ),
    ]

    @Test func aMalformedPayloadGets400NamingTheFieldAndIsNotStored() async throws {
        let path = temporaryPath(".ndjson")
        defer { removeStoreFiles(path) }
        try await Harness.run {
            $0.simpleAnalyticsStore = path
        } body: { h in
            for (body, field) in Self.malformed {
                let (status, answer) = try await PackageStyleSubmission.post(Data(body.utf8), to: h.base + "/simpleanalytics")
                #expect(status == 400, "\(body)")
                let message = try JSONDecoder().decode(PackageStyleSubmission.Answer.self, from: answer).message
                #expect(message.hasPrefix("invalid SimpleAnalytics payload: \(field) "), "\(body): \(message)")
            }
            let get = try await h.get("/simpleanalytics")
            #expect(get.status == 405)
            let gzip = try await h.post("{}", path: "/simpleanalytics", auth: nil, gzip: true)
            #expect(gzip.status == 415)
            await h.stop()
            let stored = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            #expect(stored.isEmpty)
        }
    }

    @Test func withoutAnyStoreThePathAnswers404SoTheAppKeepsItsData() async throws {
        try await Harness.run { h in
            let (status, answer) = try await PackageStyleSubmission.post(
                try PackageStyleSubmission.sample().body(), to: h.base + "/simpleanalytics")
            await h.stop()
            #expect(status == 404)
            #expect(try JSONDecoder().decode(PackageStyleSubmission.Answer.self, from: answer).message.contains("--simpleanalytics-store"))
        }
    }

    @Test func theDefaultStoreSitsNextToTheEventStore() {
        func path(_ store: CollectorStore, _ explicit: String? = nil) -> String? {
            var c = CollectorConfiguration(writeKey: "k", store: store)
            c.simpleAnalyticsStore = explicit
            return c.simpleAnalyticsStorePath
        }
        #expect(path(.ndjson("/tmp/x/events.ndjson")) == "/tmp/x/events.simpleanalytics.ndjson")
        #expect(path(.sqlite("db.sqlite")) == "db.simpleanalytics.ndjson")
        #expect(path(.ndjson("/tmp/v1.d/store")) == "/tmp/v1.d/store.simpleanalytics.ndjson")
        #expect(path(.none) == nil)
        #expect(path(.ndjson("e.ndjson"), "/tmp/sa.ndjson") == "/tmp/sa.ndjson")
        var off = CollectorConfiguration(writeKey: "k", store: .ndjson("e.ndjson"))
        off.servesSimpleAnalytics = false  // mr-replay's embedded collector
        #expect(off.simpleAnalyticsStorePath == nil)
    }
}
