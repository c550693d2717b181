import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// Shards that decide ownership before preparing a line, and file shards: the union of the
/// shards is the unsharded run, event for event and dead letter for dead letter.
struct ShardScaleOutTests {
    static let ts = #""timestamp":"2026-11-01T00:00:00Z""#

    /// A log in which every line a shard owns depends on lines other shards own: groups taught
    /// on one anonymousId and read by the same user's lines elsewhere, a group with a carried
    /// userId, aliases in both forms, logouts, placeholders, device lines, blank and bad lines.
    static func crossShardLog(users: Int = 60, lines count: Int = 3_000) -> String {
        var lines: [String] = []
        for n in 0..<count {
            // Each round of 24 lines is about one user and one anonymousId; an anonymousId
            // comes back with other users in later rounds (logins after logouts).
            let round = n / 24
            let u = (round * 7) % users
            let a = "a-\(round % (users / 3))"
            let t = Self.ts + #","messageId":"m-\#(n)""#
            switch n % 24 {
            case 0: lines.append(#"{"type":"identify","anonymousId":"\#(a)","userId":"u-\#(u)",\#(t)}"#)
            case 1: lines.append(#"{"type":"group","anonymousId":"\#(a)","groupId":"g-\#(n % 13)",\#(t)}"#)  // carried user
            case 2: lines.append(#"{"type":"track","userId":"u-\#(u)","event":"Paid",\#(t)}"#)  // derived key, reads u's group
            case 3: lines.append(#"{"type":"alias","anonymousId":"\#(a)","userId":"u-\#((u + 1) % users)",\#(t)}"#)  // SDK form
            case 4: lines.append(#"{"type":"alias","previousId":"p-\#(u)","userId":"u-\#(u)",\#(t)}"#)  // Segment form
            case 5: lines.append(#"{"type":"page","anonymousId":"p-\#(u)",\#(t)}"#)  // carries through the alias
            case 6: lines.append(#"{"type":"track","anonymousId":"\#(a)","event":"Signed Out",\#(t)}"#)  // logout
            case 7: lines.append(#"{"type":"track","anonymousId":"unknown","event":"Opened",\#(t)}"#)  // placeholder
            case 8: lines.append(#"{"type":"identify","anonymousId":"unknown","userId":"u-\#(u)",\#(t)}"#)
            case 9: lines.append(#"{"type":"track","event":"Heartbeat",\#(t)}"#)  // device line
            case 10: lines.append("")
            case 11: lines.append(#"{"type":"track","anonymousId":"\#(a)","event":"Broken",\#(t),"properties":{"x":[1,2}}"#)
            case 12: lines.append(#"{"type":"identify","anonymousId":"\#(a)","userId":"u-\#(u)","timestamp":"yesterday"}"#)  // teaches nothing
            case 13: lines.append("not json at all")
            case 14: lines.append(#"{"type":"screen","anonymous\u0049d":"\#(a)","name":"Home",\#(t)}"#)  // escaped key
            case 16: lines.append(#"{"type":"group","anonymousId":"\#(a)","groupId":"g-late-\#(n)",\#(t)}"#)  // after the logout: teaches nothing
            case 17: lines.append(#"{"type":"track","userId":"u-\#(u)","event":"Paid",\#(t)}"#)
            // A login that teaches nothing (invalid_context), then a group that would put its user
            // in a group, and that user's line elsewhere.
            case 18: lines.append(#"{"type":"identify","anonymousId":"\#(a)","userId":"u-bad-\#(u)","context":{"app":"Shop"},\#(t)}"#)
            case 19: lines.append(#"{"type":"group","anonymousId":"\#(a)","groupId":"g-bad-\#(n)",\#(t)}"#)
            case 20: lines.append(#"{"type":"track","userId":"u-bad-\#(u)","event":"Paid",\#(t)}"#)
            case 21:
                lines.append(#"{"type":"group","userId":"u-\#(u)","groupId":"g-denied","context":{"consent":{"isUserSubjectToGDPR":true}},\#(t)}"#)
            default: lines.append(#"{"type":"track","anonymousId":"\#(a)","event":"Viewed",\#(t)}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The dead-letter records of a state directory, as (messageId or line, reason) pairs.
    static func deadLetters(_ stateDir: String) throws -> [String] {
        guard let text = try? String(contentsOfFile: stateDir + "/dead-letter.ndjson", encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            let o = try #require(try JSONValue(parsing: String(line)).objectValue)
            return "\(o["line"]?.encodedString ?? "?"):\(o["reason"]?.stringValue ?? "?")"
        }
    }

    @Test(arguments: [2, 4])
    func identityShardsSendWhatOneRunSendsFieldForField(shards: Int) async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try writeFile(dir + "/in.ndjson", Self.crossShardLog())
        let yaml = #"enrichment: { identity: { logout_events: ["Signed Out"] } }"#
        try await RunTarget.run(dir: dir, name: "sharded") { sharded in
            let shardConfig = try writeRunConfig(dir: dir, url: sharded.url, extra: yaml)
            var reports: [RunReport] = []
            var shardDeadLetters: [String] = []
            for k in 0..<shards {
                let shard = try Shard(index: k, count: shards)
                let stateDir = "\(dir)/state/\(shard.directoryName)"
                reports.append(try await replay(config: shardConfig, inputs: [dir + "/in.ndjson"], stateDir: stateDir, shard: shard))
                shardDeadLetters += try Self.deadLetters(stateDir)
            }
            let device = try String(contentsOfFile: dir + "/state/device-anonymous-id", encoding: .utf8)
            try FileManager.default.createDirectory(atPath: dir + "/one", withIntermediateDirectories: true)
            try writeFile(dir + "/one/device-anonymous-id", device)
            try await RunTarget.run(dir: dir, name: "whole") { whole in
                let one = try await replay(
                    config: try writeRunConfig(dir: dir, url: whole.url, extra: yaml), inputs: [dir + "/in.ndjson"], stateDir: dir + "/one")
                let a = try await sharded.received(), b = try await whole.received()
                #expect(one.events.delivered > 2_000 && one.events.deadLettered > 300)
                #expect(a.copies.values.allSatisfy { $0 == 1 }, "no event is sent by two shards")
                #expect(a.events.count == b.events.count && a.events == b.events, "the shards' union is the unsharded run, field for field")
                #expect(shardDeadLetters.sorted() == (try Self.deadLetters(dir + "/one")).sorted(), "each dead letter is one shard's")
                #expect(reports.map(\.events.deadLettered).reduce(0, +) == one.events.deadLettered)
                #expect(reports.map(\.events.consentDropped).reduce(0, +) == one.events.consentDropped && one.events.consentDropped > 0)
                for (k, r) in reports.enumerated() {
                    #expect(r.events.delivered > 0, "every shard owns some identities")
                    #expect(r.events.read == one.events.read && r.events.skippedBlank == one.events.skippedBlank)
                    #expect(r.events.delivered + r.events.deadLettered + r.events.filtered + r.events.consentDropped == one.events.read)
                    #expect(r.shard == "\(k)/\(shards)" && r.shardBy == "identity")
                }
                let carried = b.events.values.filter {
                    $0["type"]?.stringValue == "track" && $0["event"]?.stringValue == "Paid" && $0["groupId"] != nil
                }
                #expect(carried.count > 50, "the log exercises groups read across shards")
            }
        }
    }

    @Test func theShardKeyIsThePreparedEventsLaneKey() throws {
        let config = try testConfig("enrichment: { identity: { logout_events: [\"Signed Out\"] } }")
        let identity = try IdentityStore(stateDirectory: nil)
        let enricher = Enricher(config: config, identity: identity)
        for count in [2, 3, 5] {
            var routers = try (0..<count).map {
                ShardRouter(shard: try Shard(index: $0, count: count), config: config, deviceAnonymousId: identity.deviceAnonymousId)
            }
            for (n, line) in Self.crossShardLog(lines: 400).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let bytes = Array(line.utf8)
                let routes = bytes.withUnsafeBufferPointer { buf in routers.indices.map { routers[$0].route(buf) } }
                #expect(routes.filter { $0 == .own }.count == (line.isEmpty ? count : 1), "one owner: \(line)")
                let out = EventBuffer()
                let result = bytes.withUnsafeBufferPointer { enricher.process($0, lineNumber: n + 1, sequence: UInt64(n + 1), into: &out.bytes) }
                if case .event(let e) = result {
                    let owner = try #require(routes.firstIndex(of: .own))
                    #expect(Shard(index: owner, count: count, unchecked: ()).contains(laneKey: e.laneKey), "\(line)")
                }
            }
        }
    }

    @Test func fileShardsReadOnlyTheirOwnFilesAndTogetherReadEveryFileOnce() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        var total = 0
        for f in 0..<12 {
            let (text, valid) = generateEvents(count: 50, identities: 97, seed: f + 1)  // no line repeats in another file
            try writeFile(dir + "/in/part-\(f).ndjson", text)
            total += valid
        }
        try await RunTarget.run(dir: dir) { target in
            let config = try writeRunConfig(dir: dir, url: target.url)
            var owned: [String] = []
            for k in 0..<4 {
                let shard = try Shard(index: k, count: 4, mode: .file)
                let report = try await replay(config: config, inputs: [dir + "/in/"], stateDir: "\(dir)/state/\(shard.directoryName)", shard: shard)
                #expect(report.status == .completed && report.shardBy == "file" && report.events.filtered == 0)
                #expect(report.inputsOfOtherShards == 12 - report.inputs.count)
                owned += report.inputs.map(\.path)
                let status = try StatusReader.read(stateDirectory: "\(dir)/state")
                let text = StatusReader.text(status)
                #expect(text.contains("shard \(k)/4 by file: owns the \(report.inputs.count) input(s) below"), "\(text)")
            }
            #expect(owned.count == 12 && Set(owned).count == 12, "every file is read by exactly one shard")
            let got = try await target.received()
            #expect(got.events.count == total && got.copies.values.allSatisfy { $0 == 1 })
            // The same file goes to the same shard wherever its directory is mounted.
            let moved = InputSource(path: "/elsewhere/in/part-3.ndjson", kind: .ndjson)
            let here = InputSource(path: dir + "/in/part-3.ndjson", kind: .ndjson)
            for k in 0..<4 {
                let shard = try Shard(index: k, count: 4, mode: .file)
                #expect(shard.contains(input: moved) == shard.contains(input: here))
            }
        }
    }

    @Test func shardStateDirectoriesAreNamedByMode() throws {
        #expect(try Shard(index: 1, count: 4).directoryName == "shard-1-of-4")
        #expect(try Shard(index: 1, count: 4, mode: .file).directoryName == "file-shard-1-of-4")
        #expect(Shard(directoryName: "file-shard-1-of-4") == (try Shard(index: 1, count: 4, mode: .file)))
        #expect(Shard(directoryName: "shard-1-of-4")?.mode == .identity)
        #expect(Shard(directoryName: "file-shard-4-of-4") == nil)
    }
}

extension Shard {
    /// A shard whose numbers the caller has checked.
    init(index: Int, count: Int, unchecked: Void) { self = try! Shard(index: index, count: count) }
}
