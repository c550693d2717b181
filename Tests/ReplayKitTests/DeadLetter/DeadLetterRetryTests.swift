import Foundation
import JSONCore
import Logging
import MetaRouter
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// `mr-replay dead-letter list|retry` and the dead-letter file's rotation by size.
@Suite final class DeadLetterRetryTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    var state: String { dir + "/state" }
    var deadLetterPath: String { state + "/dead-letter.ndjson" }

    /// A config for the collector at `url` with `max_event_bytes` and extra YAML.
    func config(url: String, maxEventBytes: Int, extra: String = "") throws -> String {
        let path = try writeRunConfig(dir: dir, url: url, extra: extra)
        try writeFile(
            path,
            try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(
                of: "  max_events: 50", with: "  max_events: 50\n  max_event_bytes: \(maxEventBytes)"))
        return path
    }

    /// A track event line with a `pad` property of `padding` bytes.
    func event(_ i: Int, padding: Int = 0, timestamp: Bool = true) -> String {
        let ts = timestamp ? #","timestamp":"2024-05-01T10:00:00Z""# : ""
        return
            #"{"type":"track","event":"E","anonymousId":"a-\#(i % 5)","messageId":"d-\#(i)","properties":{"pad":"\#(String(repeating: "x", count: padding))"}\#(ts)}"#
    }

    func retry(_ config: String, reason: String? = nil, fileSystem: any FileSystem = LocalFileSystem()) async throws
        -> DeadLetterRetryReport
    {
        var logger = Logger(label: "test-retry")
        logger.logLevel = .error
        return try await DeadLetterRetry(
            config: try ConfigLoader.load(path: config, environment: [:]), stateDirectory: state, reason: reason, logger: logger,
            transport: nil, fileSystem: fileSystem
        ).run()
    }

    func records(_ path: String) throws -> [JSONObject] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try #require(try JSONValue(parsing: String($0)).objectValue) }
    }

    @Test func listCountsByReasonAndFilters() throws {
        let w = try DeadLetterWriter(path: deadLetterPath)
        try w.write(reason: "too_large", detail: "d", source: "/in.ndjson", line: 3, raw: Array(event(3).utf8))
        try w.write(reason: "invalid_json", detail: "d", source: "/in.ndjson", line: 4, raw: Array("nope".utf8))
        try w.write(reason: "too_large", detail: "d", source: "/in.ndjson", line: 9, raw: Array(event(9).utf8))
        try w.close()
        let all = try DeadLetterListing.read(stateDirectory: state)
        #expect(all.total == 3)
        #expect(all.reasons == ["too_large": 2, "invalid_json": 1])
        #expect(all.events.map(\.line) == [3, 4, 9])
        #expect(all.events.map(\.messageId) == ["d-3", nil, "d-9"])
        #expect(all.events.map(\.record) == [1, 2, 3])
        #expect(all.text.hasPrefix("3 dead-lettered events in 1 file\n  invalid_json  1\n  too_large     2\n"), "\(all.text)")
        #expect(all.text.contains("/in.ndjson:9  too_large     d-9  (dead-letter.ndjson:3)\n"), "\(all.text)")
        let only = try DeadLetterListing.read(stateDirectory: state, reason: "invalid_json")
        #expect(only.total == 1 && only.events.first?.line == 4 && only.reasons == ["invalid_json": 1])
        let json = try #require(try JSONValue(parsing: all.json).objectValue)
        #expect(json["total"] == .number(JSONNumber(3)))
        #expect(json["events"]?.arrayValue?.first?.objectValue?["message_id"] == .string("d-3"))
    }

    /// The cause fixed (the size cap raised), a retry delivers the dead letters and removes
    /// them; the events keep their messageIds.
    @Test func retryAfterRaisingTheCapDeliversAndRemovesThem() async throws {
        try await RunTarget.run(dir: dir) { target in
            let lines = (0..<30).map { event($0, padding: $0 % 6 == 0 ? 2_000 : 10) }
            try writeFile(dir + "/in.ndjson", lines.joined(separator: "\n") + "\n")
            let first = try await replay(config: try config(url: target.url, maxEventBytes: 1_000), inputs: [dir + "/in.ndjson"])
            #expect(first.deadLetterReasons == ["too_large": 5])
            #expect(try DeadLetterListing.read(stateDirectory: state).total == 5)
            let report = try await retry(try config(url: target.url, maxEventBytes: 100_000))
            #expect(report.selected == 5 && report.delivered == 5, "\(report.summary)")
            #expect(report.status == .completed && report.deadLetteredAgain.isEmpty)
            #expect(try records(deadLetterPath).isEmpty)
            let got = try await target.received()
            #expect(Set(got.events.keys) == Set((0..<30).map { "d-\($0)" }))
            #expect(got.events["d-6"]?["properties"]?.objectValue?["pad"]?.stringValue?.count == 2_000)
        }
    }

    /// Events that fail again stay, in place, with their new reason; the others leave.
    @Test func retryKeepsWhatFailsAgainWithTheNewReason() async throws {
        try await RunTarget.run(dir: dir) { target in
            // The collector rejects events over 32 KiB (400): the two 40 KB events fail again.
            var lines = (0..<10).map { event($0, padding: 10) }
            lines[2] = event(2, padding: 3_000)
            lines[4] = event(4, padding: 40_000)
            lines[6] = event(6, padding: 3_000)
            lines[8] = event(8, padding: 40_000)
            try writeFile(dir + "/in.ndjson", lines.joined(separator: "\n") + "\n")
            _ = try await replay(config: try config(url: target.url, maxEventBytes: 1_000), inputs: [dir + "/in.ndjson"])
            #expect(try records(deadLetterPath).count == 4)
            let report = try await retry(try config(url: target.url, maxEventBytes: 100_000, extra: "privacy: { drop_properties: [] }"))
            #expect(report.delivered == 2, "\(report.summary)")
            #expect(report.deadLetteredAgain == ["rejected_400": 2])
            #expect(report.status == .completedWithDrops && report.status.exitCode == 1)
            let kept = try records(deadLetterPath)
            #expect(kept.map { $0["reason"]?.stringValue } == ["rejected_400", "rejected_400"])
            #expect(kept.map { $0["line"] } == [.number(JSONNumber(5)), .number(JSONNumber(9))], "source and line are kept")
            #expect(kept.allSatisfy { $0["source"]?.stringValue?.hasSuffix("/in.ndjson") == true })
            let raw = try #require(kept.first?["raw"]?.stringValue)
            #expect(try JSONValue(parsing: raw).objectValue?["messageId"] == .string("d-4"))
            let got = try await target.received()
            #expect(got.events["d-2"] != nil && got.events["d-6"] != nil && got.events["d-4"] == nil)
        }
    }

    /// `--reason` retries only that reason: the others are kept byte for byte.
    @Test func reasonSelectsWhatIsRetried() async throws {
        try await RunTarget.run(dir: dir) { target in
            let lines = [event(0), event(1, padding: 2_000), event(2, timestamp: false), event(3)]
            try writeFile(dir + "/in.ndjson", lines.joined(separator: "\n") + "\n")
            _ = try await replay(config: try config(url: target.url, maxEventBytes: 1_000), inputs: [dir + "/in.ndjson"])
            let before = try String(contentsOfFile: deadLetterPath, encoding: .utf8)
            #expect(try DeadLetterListing.read(stateDirectory: state).reasons == ["too_large": 1, "missing_timestamp": 1])
            let fixed = try config(url: target.url, maxEventBytes: 100_000)
            let report = try await retry(fixed, reason: "too_large")
            #expect(report.selected == 1 && report.delivered == 1)
            let after = try String(contentsOfFile: deadLetterPath, encoding: .utf8)
            let kept = try #require(before.split(separator: "\n").first { $0.contains("missing_timestamp") })
            #expect(after == String(kept) + "\n")
            // Then the other cause is fixed too.
            let now = try config(url: target.url, maxEventBytes: 100_000, extra: "enrichment: { default_timestamp: now }")
            let second = try await retry(now, reason: "missing_timestamp")
            #expect(second.delivered == 1)
            #expect(try records(deadLetterPath).isEmpty)
            #expect(Set(try await target.received().events.keys) == ["d-0", "d-1", "d-2", "d-3"])
        }
    }

    /// With `dead_letter.max_bytes`, the file is rotated by size into numbered files; list and
    /// retry read them all, and files a retry empties are removed.
    @Test func rotationBySizeAndListAndRetrySeeEveryFile() async throws {
        try await RunTarget.run(dir: dir) { target in
            let lines = (0..<24).map { event($0, padding: $0 % 2 == 0 ? 400 : 10) }
            try writeFile(dir + "/in.ndjson", lines.joined(separator: "\n") + "\n")
            let small = try config(url: target.url, maxEventBytes: 300, extra: "dead_letter: { max_bytes: 2000 }")
            let first = try await replay(config: small, inputs: [dir + "/in.ndjson"])
            #expect(first.events.deadLettered == 12)
            let files = DeadLetterFiles(path: deadLetterPath).all()
            #expect(files.count >= 4, "\(files)")
            #expect(files.last == deadLetterPath)
            #expect(files.dropLast().map { ($0 as NSString).lastPathComponent } == (1..<files.count).map { "dead-letter.\($0).ndjson" })
            for file in files {
                let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
                #expect(size <= 2000, "\(file) is \(size) bytes")
            }
            let listing = try DeadLetterListing.read(stateDirectory: state)
            #expect(listing.total == 12 && listing.files == files)
            #expect(listing.events.map(\.line) == stride(from: 1, through: 23, by: 2).map { $0 }, "oldest first, across files")
            let report = try await retry(try config(url: target.url, maxEventBytes: 100_000))
            #expect(report.delivered == 12 && report.files == files)
            #expect(DeadLetterFiles(path: deadLetterPath).all() == [deadLetterPath], "emptied rotated files are removed")
            #expect(try records(deadLetterPath).isEmpty)
            #expect(try await target.received().events.count == 24)
        }
    }

    /// A retry that dies after sending but before a file is replaced leaves that file exactly as
    /// it was (no record lost or duplicated); the next retry sends the same events again (same
    /// messageIds) and empties it.
    @Test func retryStoppedBeforeTheReplaceLosesAndDuplicatesNothing() async throws {
        try await RunTarget.run(dir: dir) { target in
            let lines = (0..<12).map { event($0, padding: $0 % 3 == 0 ? 2_000 : 10) }
            try writeFile(dir + "/in.ndjson", lines.joined(separator: "\n") + "\n")
            _ = try await replay(config: try config(url: target.url, maxEventBytes: 1_000), inputs: [dir + "/in.ndjson"])
            let before = try Data(contentsOf: URL(fileURLWithPath: deadLetterPath))
            let fixed = try config(url: target.url, maxEventBytes: 100_000)
            struct Crash: Error {}
            let crashing = CrashableFileSystem { _, _ in throw Crash() }
            await #expect(throws: Crash.self) { _ = try await self.retry(fixed, fileSystem: crashing) }
            #expect(crashing.written == [deadLetterPath], "the file is replaced through the file system")
            #expect(try Data(contentsOf: URL(fileURLWithPath: deadLetterPath)) == before)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.count == 1, "the killed replacement's temporary file: \(leftovers)")
            #expect(try DeadLetterListing.read(stateDirectory: state).total == 4, "a leftover temporary file is not read")
            let report = try await retry(fixed)
            #expect(report.delivered == 4)
            #expect(try records(deadLetterPath).isEmpty)
            let got = try await target.received()
            #expect(Set(got.events.keys) == Set((0..<12).map { "d-\($0)" }))
            #expect(got.copies["d-3"] == 2, "sent by both retries, with the same messageId")
        }
    }
}
