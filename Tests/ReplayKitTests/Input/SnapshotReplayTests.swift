import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// Offline queues written as the SDK writes them, replayed end to end into the test collector.
struct SnapshotReplayTests {
    /// A temporary directory for one test, removed after it.
    static func withDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        return try await body(dir)
    }

    /// When the tests' events were queued: an hour ago (the SDK's 7-day rule keeps them).
    static let queuedAt = Date().addingTimeInterval(-3600)

    /// Events `start..<start + count` of one device, the same ones at every call.
    static func recentEvents(_ count: Int, start: Int = 0) -> [SDKSnapshot.Event] {
        SDKSnapshot.events(count: count, start: start) { queuedAt.addingTimeInterval(Double($0)) }
    }

    static func write(_ data: Data, _ path: String) throws { try data.write(to: URL(fileURLWithPath: path)) }

    /// The offset of the first `{` of the element of `events` that holds `messageId`, found by
    /// walking the array's elements by their brackets and quotes (the encoder orders keys freely).
    static func start(of messageId: String, in data: Data) -> Int {
        let bytes = [UInt8](data)
        let needle = Array("\"messageId\":\"\(messageId)\"".utf8)
        var k = Array(String(decoding: bytes, as: UTF8.self).utf8).firstRange(of: Array("\"events\":[".utf8))!.upperBound
        while true {
            let start = k
            var depth = 0, inString = false, escaped = false
            repeat {
                let c = bytes[k]
                if inString {
                    if escaped {
                        escaped = false
                    } else if c == UInt8(ascii: "\\") {
                        escaped = true
                    } else if c == UInt8(ascii: "\"") {
                        inString = false
                    }
                } else if c == UInt8(ascii: "\"") {
                    inString = true
                } else if c == UInt8(ascii: "{") {
                    depth += 1
                } else if c == UInt8(ascii: "}") {
                    depth -= 1
                }
                k += 1
            } while depth > 0 || inString
            if bytes[start..<k].firstRange(of: needle) != nil { return start }
            k += 1  // the comma
        }
    }

    @Test(arguments: [false, true])
    func intactSnapshotArrivesAsTheSDKWroteIt(eventsFirst: Bool) async throws {
        try await Self.withDirectory { dir in
            let events = Self.recentEvents(20)
            let data = try SDKSnapshot.encode(events, eventsFirst: eventsFirst)
            #expect(String(decoding: data, as: UTF8.self).contains(#"https:\/\/shop"#), "JSONEncoder escapes slashes")
            try Self.write(data, dir + "/queue.v1.json")
            try await RunTarget.run(dir: dir) { target in
                let report = try await replay(config: try writeRunConfig(dir: dir, url: target.url), inputs: [dir + "/queue.v1.json"])
                #expect(report.status == .completed)
                #expect(report.events.delivered == 20)
                let got = try await target.received()
                for e in events {
                    let o = try #require(got.events[e.messageId], "\(e.messageId) arrived")
                    #expect(o["timestamp"]?.stringValue == e.timestamp)
                    #expect(o["properties"]?.objectValue?["big"]?.encodedString == "\(9_007_199_254_740_993 + Int64(Self.index(e)))")
                    #expect(o["properties"]?.objectValue?["url"]?.stringValue?.hasPrefix("https://shop.example.com/p/") == true)
                    let context = o["context"]?.objectValue
                    #expect(context?["library"]?.objectValue?["name"]?.stringValue == "metarouter-ios", "the SDK's own library is kept")
                    #expect(context?["providers"] != nil && context?["page"] != nil)
                    #expect(o["integrations"]?.objectValue?["All"] == .bool(true))
                }
            }
        }
    }

    static func index(_ e: SDKSnapshot.Event) -> Int { Int(e.messageId.suffix(12), radix: 16)! }

    @Test(arguments: ["2", "\"1\""])
    func unknownVersionIsAnErrorAndNothingIsSentOrSettled(version: String) async throws {
        try await Self.withDirectory { dir in
            let path = dir + "/queue.v1.json"
            let v: SDKSnapshot.Value = version == "2" ? .int(2) : .string("1")
            try Self.write(try SDKSnapshot.encode(Self.recentEvents(3), version: v), path)
            try await RunTarget.run(dir: dir) { target in
                let config = try writeRunConfig(dir: dir, url: target.url)
                let error = await #expect(throws: UsageError.self) { _ = try await replay(config: config, inputs: [path]) }
                let text = error.map { "\($0)" } ?? ""
                #expect(text.contains(path) && text.contains("version \(version)") && text.contains("reads version 1"), "\(text)")
                #expect(try await target.received().events.isEmpty)
                let checkpoint = try? String(contentsOfFile: dir + "/state/checkpoint.json", encoding: .utf8)
                #expect(checkpoint?.contains("queue.v1.json") != true, "the file is not marked as read")
                let summary = try Validator.validate(config: try testConfig(), inputs: [InputSource(path: path, kind: .snapshot)])
                #expect(summary.reasons == ["unsupported_snapshot": 1] && !summary.allValid)
                #expect(throws: UsageError.self) {
                    try DryRunner.run(
                        config: try testConfig(stateDir: dir + "/dry"), inputs: [InputSource(path: path, kind: .snapshot)], outputFD: -1)
                }
            }
        }
    }

    @Test(arguments: [false, true])
    func truncatedSnapshotReplaysEveryCompleteEventAndDeadLettersTheRestWhole(eventsFirst: Bool) async throws {
        try await Self.withDirectory { dir in
            let events = Self.recentEvents(20)
            let whole = try SDKSnapshot.encode(events, eventsFirst: eventsFirst)
            let breakAt = Self.start(of: events[12].messageId, in: whole)
            let cut = whole.prefix(breakAt + 40)
            try Self.write(cut, dir + "/queue.v1.json")
            try await RunTarget.run(dir: dir) { target in
                let report = try await replay(config: try writeRunConfig(dir: dir, url: target.url), inputs: [dir + "/queue.v1.json"])
                #expect(report.events.delivered == 12)
                #expect(report.deadLetterReasons == ["damaged_snapshot": 1])
                #expect(report.events.read == report.events.delivered + report.events.deadLettered)
                #expect(report.status == .completedWithDrops)
                #expect(report.warnings.contains { $0.contains("damaged at byte \(breakAt)") }, "\(report.warnings)")
                let got = try await target.received()
                #expect(Set(got.events.keys) == Set(events.prefix(12).map(\.messageId)))
                let record = try #require(try Self.deadLetters(dir).first)
                #expect(record["raw"]?.stringValue == String(decoding: cut[breakAt...], as: UTF8.self), "the rest, byte for byte")
            }
        }
    }

    static func deadLetters(_ dir: String) throws -> [JSONObject] {
        guard let text = try? String(contentsOfFile: dir + "/state/dead-letter.ndjson", encoding: .utf8) else { return [] }
        return try text.split(separator: "\n")
            .map { try JSONValue(parsing: String($0)).objectValue! }
    }

    @Test func truncatedCaptureReplacedByTheCompleteOneDeliversEveryEventOnce() async throws {
        try await Self.withDirectory { dir in
            let events = Self.recentEvents(20)
            let whole = try SDKSnapshot.encode(events)
            let path = dir + "/device-7.queue.v1.json"
            try Self.write(whole.prefix(Self.start(of: events[12].messageId, in: whole) + 40), path)
            try await RunTarget.run(dir: dir) { target in
                let config = try writeRunConfig(dir: dir, url: target.url)
                let first = try await replay(config: config, inputs: [path])
                #expect(first.events.delivered == 12)
                let unchanged = try await replay(config: config, inputs: [path])
                #expect(unchanged.events.read == 0, "the damaged rest is not dead-lettered again while the file is the same")
                try Self.write(whole, path)
                let second = try await replay(config: config, inputs: [path])
                #expect(second.events.delivered == 8)
                let got = try await target.received()
                #expect(Set(got.events.keys) == Set(events.map(\.messageId)))
                #expect(got.copies.values.allSatisfy { $0 == 1 }, "every event arrives exactly once")
            }
        }
    }

    @Test func rewrittenSnapshotSendsOnlyWhatWasNotDelivered() async throws {
        try await Self.withDirectory { dir in
            let path = dir + "/queue.v1.json"
            try Self.write(try SDKSnapshot.encode(Self.recentEvents(10)), path)
            try await RunTarget.run(dir: dir) { target in
                let config = try writeRunConfig(dir: dir, url: target.url)
                #expect(try await replay(config: config, inputs: [path]).events.delivered == 10)
                // The device sent 0..<5 itself, then queued 10..<15: the SDK rewrote the file.
                try Self.write(try SDKSnapshot.encode(Self.recentEvents(10, start: 5)), path)
                let second = try await replay(config: config, inputs: [path])
                #expect(second.events.alreadyDelivered == 5)
                #expect(second.events.delivered == 5)
                #expect(second.warnings.contains { $0.contains("rewritten") })
                let got = try await target.received()
                #expect(got.events.count == 15 && got.copies.values.allSatisfy { $0 == 1 })
            }
        }
    }

    @Test func truncatedOverflowFileOverOneMebibyteLosesNoByte() async throws {
        try await Self.withDirectory { dir in
            var events = Self.recentEvents(100)
            for i in events.indices { events[i].properties?["blob"] = .string(String(repeating: "x\u{e9}", count: 10_000)) }
            // The capture was cut inside a large event: the rest is over 1 MiB.
            events[40].properties?["blob"] = .string(String(repeating: "y\u{e9}", count: 700_000))
            let whole = try SDKSnapshot.encode(events)
            let breakAt = Self.start(of: events[40].messageId, in: whole)
            let cut = whole.prefix(breakAt + 1_200_000)
            try Self.write(cut, dir + "/overflow.v1.json")
            #expect(InputResolver.source(for: dir + "/overflow.v1.json").kind == .snapshot, "recognised by name")
            try await RunTarget.run(dir: dir) { target in
                let config = try writeRunConfig(dir: dir, url: target.url)
                let report = try await replay(config: config, inputs: [dir + "/overflow.v1.json"])
                #expect(report.events.delivered == 40)
                #expect(report.events.deadLettered == 1)
                let record = try #require(try Self.deadLetters(dir).first)
                let side = try #require(record["raw_file"]?.stringValue)
                let bytes = try Data(contentsOf: URL(fileURLWithPath: side))
                #expect(bytes == cut[breakAt...], "the side file holds every byte from the break to the end")
                #expect(record["raw_bytes"]?.encodedString == "\(cut.count - breakAt)")
                _ = try await target.received()
            }
        }
    }

    @Test func eventsOlderThanSevenDaysBeforeTheQueueWasWrittenExpire() async throws {
        try await Self.withDirectory { dir in
            let written = Date(timeIntervalSince1970: 1_790_000_000)
            let ages: [TimeInterval] = [7 * 86_400 + 60, 6 * 86_400 + 23 * 3600]
            let events = SDKSnapshot.events(count: 2) { written.addingTimeInterval(-ages[$0]) }
            let path = dir + "/queue.v1.json"
            try Self.write(try SDKSnapshot.encode(events), path)
            try FileManager.default.setAttributes([.modificationDate: written], ofItemAtPath: path)
            let summary = try Validator.validate(config: try testConfig(), inputs: [InputSource(path: path, kind: .snapshot)])
            #expect(summary.skipped == ["expired": 1] && summary.valid == 1 && summary.allValid)
            try await RunTarget.run(dir: dir) { target in
                let report = try await replay(config: try writeRunConfig(dir: dir, url: target.url), inputs: [path])
                #expect(report.events.expired == 1 && report.events.delivered == 1 && report.status == .completed)
                #expect(Set(try await target.received().events.keys) == [events[1].messageId])
                // Off: both are sent.
                let off = try ConfigLoader.load(text: "inputs:\n  max_event_age: off\n", file: "t", environment: [:])
                #expect(try Validator.validate(config: off, inputs: [InputSource(path: path, kind: .snapshot)]).valid == 2)
            }
        }
    }

    @Test func ndjsonBackfillsHaveNoAgeLimitUnlessOneIsSet() throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writeFile(dir + "/old.ndjson", #"{"type":"page","anonymousId":"a","timestamp":"2019-01-01T00:00:00.5Z"}"# + "\n")
        let source = InputSource(path: dir + "/old.ndjson", kind: .ndjson)
        #expect(try Validator.validate(config: try testConfig(), inputs: [source]).valid == 1)
        let limited = try testConfig("inputs:\n  max_event_age: 30d\n")
        #expect(try Validator.validate(config: limited, inputs: [source]).skipped == ["expired": 1])
    }

    @Test func aRevocationInTheQueuePurgesTheEventsQueuedBeforeIt() async throws {
        try await Self.withDirectory { dir in
            var events = Self.recentEvents(8)
            events[5].context["consent"] = .object(["isUserSubjectToGDPR": .bool(true), "hasConsentForDataUsage": .bool(false)])
            for i in 6..<8 { events[i].context["consent"] = .object(["isUserSubjectToGDPR": .bool(true), "hasConsentForDataUsage": .bool(true)]) }
            try Self.write(try SDKSnapshot.encode(events), dir + "/queue.v1.json")
            try await RunTarget.run(dir: dir) { target in
                let report = try await replay(config: try writeRunConfig(dir: dir, url: target.url), inputs: [dir + "/queue.v1.json"])
                #expect(report.events.consentDropped == 6 && report.events.delivered == 2 && report.status == .completed)
                #expect(Set(try await target.received().events.keys) == Set(events[6...].map(\.messageId)))
            }
        }
    }

    @Test func emptyInputsWarnAndExitAsUsual() async throws {
        try await Self.withDirectory { dir in
            try writeFile(dir + "/queue.v1.json", "")
            try writeFile(dir + "/blank.ndjson", "\n  \n")
            try await RunTarget.run(dir: dir) { target in
                let report = try await replay(
                    config: try writeRunConfig(dir: dir, url: target.url), inputs: [dir + "/queue.v1.json", dir + "/blank.ndjson"])
                #expect(report.status == .completed)
                #expect(report.warnings.filter { $0.contains("is empty") }.count == 2, "\(report.warnings)")
                _ = try await target.received()
            }
        }
    }

    /// A file renamed away by log rotation continues where it stopped under its new name; the
    /// new file under the old name is read from its start.
    @Test func rotatedNDJSONContinuesUnderItsNewName() async throws {
        try await Self.withDirectory { dir in
            let logs = dir + "/logs"
            try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
            let (first, _) = generateEvents(count: 10)
            try writeFile(logs + "/app.ndjson", first)
            try await RunTarget.run(dir: dir) { target in
                let config = try writeRunConfig(dir: dir, url: target.url)
                #expect(try await replay(config: config, inputs: [logs]).events.delivered == 10)
                let (tail, _) = generateEvents(count: 3, seed: 50)
                try writeFile(logs + "/app.ndjson", first + tail)
                try FileManager.default.moveItem(atPath: logs + "/app.ndjson", toPath: logs + "/app-1.ndjson")
                let (fresh, _) = generateEvents(count: 4, seed: 70)
                try writeFile(logs + "/app.ndjson", fresh)
                let second = try await replay(config: config, inputs: [logs])
                #expect(second.events.delivered == 7, "3 new lines of the rotated file and 4 of the new one")
                #expect(second.warnings.contains { $0.contains("rotated") }, "\(second.warnings)")
                _ = try await target.received()
            }
        }
    }
}
