import Collector
import Foundation
import JSONCore
import Logging
import ReplayKit
import ServerTesting
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// SimpleAnalytics payloads in, MetaRouter events out: through mr-collector's
/// `/simpleanalytics` store and a replay of it.
@Suite struct SimpleAnalyticsReplayTests {
    /// A payload in the package's layout (device fields at the top level, timestamps in the
    /// device's zone, `parameters` only when there are some).
    static let iPhone = #"""
        {"device_id":"device-A","app_name":"Demo App","app_version":"3.1","system_version":"18.1","platform":"iOS (iPhone)","items":[{"description":"Logged in","timestamp":"2026-11-23T09:15:04-05:00","parameters":{"path":"a\/b","method":"password"}},{"description":"Opened settings","timestamp":"2026-11-23T09:15:09-05:00"}],"counters":[{"name":"Foregrounded app","count":3,"timestamp":"2026-11-23T09:14:04-05:00"}]}
        """#
    /// Another device, with the README's per-entry fields on its item.
    static let mac = #"""
        {"device_id":"device-B","app_name":"Demo App","app_version":"3.1","system_version":"15.1.0","platform":"macOS","items":[{"description":"Exported","timestamp":"2026-11-23T15:00:00+01:00","parameters":{"format":"csv"},"app_version":"3.2"}],"counters":[]}
        """#

    static func withDirectory(_ body: (String) async throws -> Void) async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await body(dir)
    }

    /// Starts a collector that keeps SimpleAnalytics payloads in `path`, POSTs `bodies` to it as
    /// the package does (URLSession, `Content-Type: application/json`, no credentials) and stops it.
    static func collect(_ bodies: [String], into path: String) async throws {
        var config = CollectorConfiguration(writeKey: "unused")
        config.simpleAnalyticsStore = path
        let server = CollectorServer(configuration: config, logger: Logger(label: "sa-intake"))
        try await withRunningServer(server) { _ in
            let url = await server.baseURL + "/simpleanalytics"
            for body in bodies {
                var request = URLRequest(url: URL(string: url)!)
                request.httpMethod = "POST"
                request.httpBody = Data(body.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                let (data, response) = try await URLSession(configuration: .default).data(for: request)
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
                #expect(try JSONValue(parsing: Array(data)).objectValue?["message"]?.stringValue != nil)
            }
        }
    }

    /// Replays `inputs` into a fresh collector under `dir/name`; returns the report and what arrived.
    static func replayInto(_ dir: String, _ name: String, _ inputs: [String]) async throws
        -> (RunReport, [String: JSONObject], [String: Int])
    {
        try FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: true)
        return try await RunTarget.run(dir: dir + "/" + name) { target in
            let config = try writeRunConfig(dir: dir + "/" + name, url: target.url)
            let report = try await replay(config: config, inputs: inputs)
            let got = try await target.received()
            return (report, got.events, got.copies)
        }
    }

    static func byName(_ events: [String: JSONObject]) -> [String: JSONObject] {
        Dictionary(events.values.map { ($0["event"]?.stringValue ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func replayingTheStoredFileDeliversTheMappedEventsWithStableIds() async throws {
        try await Self.withDirectory { dir in
            let stored = dir + "/sa.ndjson"
            // The iPhone app submits its payload twice (as after an answer it could not read).
            try await Self.collect([Self.iPhone, Self.mac, Self.iPhone], into: stored)
            #expect(InputResolver.source(for: stored).kind == .simpleAnalytics)

            let (report, events, copies) = try await Self.replayInto(dir, "one", [stored])
            #expect(report.events.read == 7)
            #expect(report.events.delivered == 7)
            #expect(report.events.deadLettered == 0)
            #expect(events.count == 4, "the resent payload has the same ids")
            #expect(copies.values.sorted() == [1, 2, 2, 2])

            let named = Self.byName(events)
            #expect(Set(named.keys) == ["Logged in", "Opened settings", "Foregrounded app", "Exported"])
            let login = try #require(named["Logged in"])
            #expect(login["type"]?.stringValue == "track")
            #expect(login["properties"] == .object(["method": "password", "path": "a/b"]))
            #expect(login["anonymousId"]?.stringValue == "device-A")
            #expect(login["timestamp"]?.stringValue == "2026-11-23T09:15:04-05:00", "the zone is kept")
            let context = try #require(login["context"]?.objectValue)
            #expect(context["app"]?.objectValue?["name"] == "Demo App")
            #expect(context["app"]?.objectValue?["version"] == "3.1")
            #expect(context["os"]?.objectValue?["name"] == "iOS")
            #expect(context["os"]?.objectValue?["version"] == "18.1")
            #expect(context["device"]?.objectValue?["type"] == "iPhone")
            #expect(named["Opened settings"]?["properties"] == .object([:]))
            #expect(named["Opened settings"]?["timestamp"]?.stringValue == "2026-11-23T09:15:09-05:00")

            let counter = try #require(named["Foregrounded app"])
            #expect(counter["properties"] == .object(["count": 3]))
            #expect(counter["timestamp"]?.stringValue == "2026-11-23T09:14:04-05:00", "its first count")
            #expect(counter["anonymousId"]?.stringValue == "device-A")

            let export = try #require(named["Exported"])
            #expect(export["anonymousId"]?.stringValue == "device-B")
            #expect(export["timestamp"]?.stringValue == "2026-11-23T15:00:00+01:00")
            #expect(export["context"]?.objectValue?["app"]?.objectValue?["version"] == "3.2", "the entry's own field wins")
            #expect(export["context"]?.objectValue?["os"]?.objectValue?["name"] == "macOS")
            #expect(export["context"]?.objectValue?["device"]?.objectValue?["type"] == "macOS")
            // messageIds in the SDK's form, with the entry's time.
            let loginId = try #require(login["messageId"]?.stringValue)
            #expect(loginId.hasPrefix("1795443304000-"))

            // Another run, another state directory: the same ids.
            let (again, eventsAgain, _) = try await Self.replayInto(dir, "two", [stored])
            #expect(again.events.delivered == 7)
            #expect(Set(eventsAgain.keys) == Set(events.keys))
        }
    }

    @Test func badPayloadLinesAreDeadLetteredWithLineAndField() async throws {
        try await Self.withDirectory { dir in
            let path = dir + "/mixed.ndjson"
            let badTimestamp = #"{"device_id":"d","items":[{"description":"A","timestamp":"yesterday"}],"counters":[]}"#
            try writeFile(path, [Self.mac, badTimestamp, #"{"items": ["#, "", Self.iPhone].joined(separator: "\n") + "\n")
            #expect(InputResolver.source(for: path).kind == .simpleAnalytics)
            let (report, events, _) = try await Self.replayInto(dir, "out", [path])
            #expect(report.events.delivered == 4)
            #expect(report.events.deadLettered == 2)
            #expect(report.deadLetterReasons == ["invalid_simpleanalytics_payload": 1, "invalid_json": 1])
            #expect(report.events.skippedBlank == 1)
            #expect(events.count == 4)
            let letters = try SnapshotReplayTests.deadLetters(dir + "/out")
            #expect(letters.count == 2)
            let first = try #require(letters.first)
            #expect(first["line"] == 2)
            #expect(first["source"]?.stringValue == path)
            #expect(first["detail"]?.stringValue?.contains("items[0].timestamp") == true, "\(first)")
            #expect(first["raw"]?.stringValue == badTimestamp, "the payload, whole")
            #expect(letters.last?["line"] == 3)
        }
    }

    @Test func aPrettyPrintedOnePayloadFileIsRecognisedAndReplayed() async throws {
        try await Self.withDirectory { dir in
            let value = try JSONValue(parsing: Self.iPhone)
            let pretty = try JSONSerialization.data(
                withJSONObject: JSONSerialization.jsonObject(with: Data(value.encoded)), options: [.prettyPrinted])
            #expect(pretty.contains(0x0A))
            try pretty.write(to: URL(fileURLWithPath: dir + "/payload.json"))
            try writeFile(dir + "/events.ndjson", #"{"type":"track","event":"E","anonymousId":"x","timestamp":"2026-01-01T00:00:00Z"}"# + "\n")
            let sources = try InputResolver.resolve([dir])
            #expect(sources.map(\.kind) == [.ndjson, .simpleAnalyticsDocument])

            let (report, events, _) = try await Self.replayInto(dir, "out", [dir + "/payload.json"])
            #expect(report.events.delivered == 3)
            let named = Self.byName(events)
            #expect(named["Logged in"]?["properties"] == .object(["method": "password", "path": "a/b"]))
            #expect(named["Foregrounded app"]?["properties"] == .object(["count": 3]))

            // The same payload as one line gives the same ids.
            try writeFile(dir + "/line.ndjson", Self.iPhone + "\n")
            let (_, lineEvents, _) = try await Self.replayInto(dir, "line", [dir + "/line.ndjson"])
            #expect(Set(lineEvents.keys) == Set(events.keys))

            // Compressed, both are recognised by content too.
            let lineGz = try gzipFile(dir + "/line.ndjson", to: dir + "/line.gz")
            let documentGz = try gzipFile(dir + "/payload.json", to: dir + "/payload.gz")
            #expect(InputResolver.source(for: lineGz).kind == .simpleAnalytics)
            #expect(InputResolver.source(for: documentGz).kind == .simpleAnalyticsDocument)
            let (gzReport, gzEvents, gzCopies) = try await Self.replayInto(dir, "gz", [lineGz, documentGz])
            #expect(gzReport.events.delivered == 6)
            #expect(Set(gzEvents.keys) == Set(events.keys))
            #expect(gzCopies.values.allSatisfy { $0 == 2 })
        }
    }

    @Test func aCheckpointFallsBetweenPayloadsAndAGrownFileSendsOnlyTheNewOne() async throws {
        try await Self.withDirectory { dir in
            let path = dir + "/sa.ndjson"
            try writeFile(path, Self.iPhone + "\n")
            try await RunTarget.run(dir: dir) { target in
                let config = try writeRunConfig(dir: dir, url: target.url)
                let first = try await replay(config: config, inputs: [path])
                #expect(first.events.delivered == 3)
                let handle = try #require(FileHandle(forWritingAtPath: path))
                try handle.seekToEnd()
                try handle.write(contentsOf: Data((Self.mac + "\n").utf8))
                try handle.close()
                let second = try await replay(config: config, inputs: [path])
                #expect(second.events.read == 1)
                #expect(second.events.delivered == 1)
                let got = try await target.received()
                #expect(got.events.count == 4)
                #expect(got.copies.values.allSatisfy { $0 == 1 })
            }
        }
    }

    @Test func aPayloadLineSettlesOnlyWithItsLastEventAndResumesAtThePayload() async throws {
        try await Self.withDirectory { dir in
            let path = dir + "/sa.ndjson"
            try writeFile(path, Self.iPhone + "\n" + Self.mac + "\n")
            let endOfFirst = UInt64(Self.iPhone.utf8.count + 1)
            let source = InputResolver.source(for: path)
            var seen: [(line: Int, settled: (offset: UInt64, lineNumber: Int), event: String?)] = []
            let enricher = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
            try LineWalker.walk(inputs: [source], config: try testConfig(), enricher: enricher) { item in
                guard case .event(let event) = item.result else { Issue.record("\(item.result)"); return true }
                let name = try JSONValue(parsing: event.bytes).objectValue?["event"]?.stringValue
                seen.append((item.line.lineNumber, item.settledThrough, name))
                return true
            }
            #expect(seen.map(\.line) == [1, 1, 1, 2])
            #expect(seen.map(\.event) == ["Logged in", "Opened settings", "Foregrounded app", "Exported"])
            #expect(seen.map(\.settled.offset) == [0, 0, endOfFirst, endOfFirst + UInt64(Self.mac.utf8.count + 1)])
            #expect(seen.map(\.settled.lineNumber) == [0, 0, 1, 2])

            var resumed: [String?] = []
            try LineWalker.walk(
                inputs: [source], config: try testConfig(), enricher: enricher,
                resumeAt: [ResumePoint(offset: endOfFirst, lineNumber: 2)]
            ) { item in
                if case .event(let event) = item.result {
                    resumed.append(try JSONValue(parsing: event.bytes).objectValue?["event"]?.stringValue)
                }
                return true
            }
            #expect(resumed == ["Exported"])
        }
    }
}
