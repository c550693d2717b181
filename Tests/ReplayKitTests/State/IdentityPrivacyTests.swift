import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// Identity is never borrowed, shards partition exactly, and the privacy rules hold on replay.
struct IdentityPrivacyTests {
    static let ts = #""timestamp":"2026-11-01T00:00:00Z""#

    /// Enriches `line` with a fresh in-memory store and `yaml`; the event object, or nil.
    static func event(_ line: String, _ yaml: String = "") throws -> JSONObject? {
        let e = Enricher(config: try testConfig(yaml), identity: try IdentityStore(stateDirectory: nil))
        guard case .event(let event) = enrich(e, line), case let bytes = event.bytes else { return nil }
        return try JSONValue(parsing: bytes).objectValue
    }

    @Test func derivedAnonymousIdIsTheUUIDv5OfTheUserId() {
        // uuid.uuid5(uuid.UUID("9d3b1f52-6c1e-4f8a-a7d2-3e5b8c0f4a61"), "user-1") in Python.
        #expect(DerivedAnonymousId.make(userId: "user-1") == "44a97262-d3be-5297-8a96-f25cf7c464e5")
        #expect(DerivedAnonymousId.make(userId: "user-2") != DerivedAnonymousId.make(userId: "user-1"))
    }

    /// A backfill of 5,000 users, 30 % of its lines userId-only: no two users share a filled
    /// anonymousId, and no event gets another user's userId or groupId.
    @Test func backfillNeverBorrowsAnotherUsersIdentity() throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rng = SystemRandomNumberGenerator()
        var owner: [String: Int] = [:]  // messageId -> user
        var lines: [String] = []
        for n in 0..<30_000 {
            let u = Int.random(in: 0..<5_000, using: &rng)
            let id = "m-\(n)"
            owner[id] = u
            let userOnly = Double.random(in: 0..<1, using: &rng) < 0.3
            let ids = userOnly ? #""userId":"u-\#(u)""# : (n % 2 == 0 ? #""anonymousId":"a-\#(u)","userId":"u-\#(u)""# : #""anonymousId":"a-\#(u)""#)
            switch n % 5 {
            case 0: lines.append(#"{"type":"identify",\#(ids),"messageId":"\#(id)",\#(Self.ts)}"#)
            case 1: lines.append(#"{"type":"group",\#(ids),"groupId":"g-\#(u % 97)","messageId":"\#(id)",\#(Self.ts)}"#)
            default: lines.append(#"{"type":"track","event":"E",\#(ids),"messageId":"\#(id)",\#(Self.ts)}"#)
            }
        }
        try writeFile(dir + "/backfill.ndjson", lines.joined(separator: "\n") + "\n")
        let enricher = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        var derivedOwner: [String: String] = [:]
        var userOnlyLines = 0
        try LineWalker.walk(inputs: [InputSource(path: dir + "/backfill.ndjson", kind: .ndjson)], config: try testConfig(), enricher: enricher) {
            item in
            guard case .event(let event) = item.result, let o = try JSONValue(parsing: event.bytes).objectValue else {
                Issue.record("line \(item.line.lineNumber) did not become an event")
                return false
            }
            let u = owner[o["messageId"]!.stringValue!]!
            let anon = o["anonymousId"]!.stringValue!
            if !anon.hasPrefix("a-") {
                userOnlyLines += 1
                #expect(anon == DerivedAnonymousId.make(userId: "u-\(u)"))
                #expect(derivedOwner.updateValue("u-\(u)", forKey: anon) ?? "u-\(u)" == "u-\(u)", "two users share \(anon)")
            }
            if let user = o["userId"]?.stringValue { #expect(user == "u-\(u)", "an event of u-\(u) got \(user)") }
            if let group = o["groupId"]?.stringValue { #expect(group == "g-\(u % 97)", "an event of u-\(u) got \(group)") }
            return true
        }
        #expect(Double(userOnlyLines) > 0.25 * 30_000)
        #expect(enricher.stats.anonymousIdsDerived == userOnlyLines)
        #expect(enricher.stats.userIdsCarried > 0 && enricher.stats.groupIdsCarried > 0, "carry-forward still works")
    }

    @Test func identityRulesAreSettings() throws {
        let line = #"{"type":"track","event":"E","userId":"u-1",\#(Self.ts)}"#
        let device = try #require(try Self.event(line, "enrichment:\n  identity:\n    user_lines: device\n"))
        #expect(device["anonymousId"]?.stringValue?.count == 36)
        #expect(device["anonymousId"]?.stringValue != DerivedAnonymousId.make(userId: "u-1"))
        let bare = #"{"type":"track","event":"E",\#(Self.ts)}"#
        let e = Enricher(
            config: try testConfig("enrichment:\n  identity:\n    device_lines: reject\n"), identity: try IdentityStore(stateDirectory: nil))
        #expect(reason(enrich(e, bare)) == "missing_identity")
    }

    /// The union of three shard runs, started at the same moment, is one unsharded run, event for
    /// event, on a file where a third of the lines lack an anonymousId and a tenth lack both ids.
    @Test func shardsPartitionExactly() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var lines: [String] = []
        for n in 0..<3_000 {
            let u = (n * 7919) % 400
            let ids: String
            switch n % 30 {
            case 0, 10, 20: ids = ""  // neither id: a tenth
            case let k where k % 3 == 1: ids = #""userId":"u-\#(u)","#  // userId only: with the above, a third lack an anonymousId
            default: ids = #""anonymousId":"a-\#(u)","userId":"u-\#(u)","#
            }
            let kind =
                n % 4 == 0 ? #""type":"identify","# : (n % 4 == 1 ? #""type":"group","groupId":"g-\#(u % 9)","# : #""type":"track","event":"E","#)
            let message = n % 2 == 0 ? #""messageId":"m-\#(n)","# : ""
            lines.append("{" + kind + ids + message + Self.ts + "}")
        }
        try writeFile(dir + "/in.ndjson", lines.joined(separator: "\n") + "\n")
        try await RunTarget.run(dir: dir, name: "sharded") { sharded in
            let shardConfig = try writeRunConfig(dir: dir, url: sharded.url)
            let reports = try await withThrowingTaskGroup(of: RunReport.self) { group in
                for k in 0..<3 {
                    let shard = try Shard(index: k, count: 3)
                    group.addTask {
                        try await replay(
                            config: shardConfig, inputs: [dir + "/in.ndjson"], stateDir: "\(dir)/state/\(shard.directoryName)", shard: shard)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let device = try String(contentsOfFile: dir + "/state/device-anonymous-id", encoding: .utf8)
            for k in 0..<3 {
                let shardDevice = try IdentityStore(stateDirectory: "\(dir)/state/shard-\(k)-of-3")
                #expect(shardDevice.deviceAnonymousId + "\n" == device, "every shard uses the one device anonymousId")
                shardDevice.close()
            }
            try await RunTarget.run(dir: dir, name: "whole") { whole in
                try FileManager.default.createDirectory(atPath: dir + "/one", withIntermediateDirectories: true)
                try writeFile(dir + "/one/device-anonymous-id", device)
                let one = try await replay(config: try writeRunConfig(dir: dir, url: whole.url), inputs: [dir + "/in.ndjson"], stateDir: dir + "/one")
                #expect(one.events.delivered == 3_000)
                #expect(reports.map(\.events.delivered).reduce(0, +) == 3_000)
                #expect(reports.allSatisfy { $0.events.delivered + $0.events.filtered == 3_000 })
                let a = try await sharded.received(), b = try await whole.received()
                #expect(extraCopiesAreResentBatches(a.copies, reports), "no event is sent by two shards: \(a.copies.filter { $0.value > 1 })")
                #expect(a.events.count == 3_000 && a.events == b.events, "the shards' union is the unsharded run, event for event")
                #expect(reports.allSatisfy { $0.events.delivered > 300 }, "userId-only traffic spreads over the shards")
            }
        }
    }

    @Test(arguments: [
        ("2", false), ("3", true), ("0", false), ("1", false), (#""denied""#, false), (#""authorized""#, true),
        (#""3""#, true), (#""notDetermined""#, false), (#""AUTHORIZED""#, true),
    ])
    func attStatusByNameAndByNumber(status: String, kept: Bool) throws {
        let ad = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
        let line = #"{"type":"page","anonymousId":"a",\#(Self.ts),"context":{"device":{"advertisingId":"\#(ad)","trackingStatus":\#(status)}}}"#
        let o = try #require(try Self.event(line))
        #expect((o["context"]?.objectValue?["device"]?.objectValue?["advertisingId"] != nil) == kept, "\(status)")
        let atContext = #"{"type":"page","anonymousId":"a",\#(Self.ts),"context":{"att_status":\#(status),"device":{"advertisingId":"\#(ad)"}}}"#
        let c = try #require(try Self.event(atContext))
        #expect((c["context"]?.objectValue?["device"]?.objectValue?["advertisingId"] != nil) == kept, "att_status \(status)")
    }

    @Test func anAdvertisingIdFromTheConfigObeysTheSameRules() throws {
        let ad = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
        func adOf(_ line: String, _ device: String) throws -> String? {
            let yaml = "enrichment:\n  context:\n    device: \(device)\n"
            return try Self.event(line, yaml)?["context"]?.objectValue?["device"]?.objectValue?["advertisingId"]?.stringValue
        }
        let noContext = #"{"type":"page","anonymousId":"a",\#(Self.ts)}"#
        let denied = #"{"type":"page","anonymousId":"a",\#(Self.ts),"context":{"device":{"trackingStatus":2}}}"#
        let deniedAtContext = #"{"type":"page","anonymousId":"a",\#(Self.ts),"context":{"att_status":"denied"}}"#
        #expect(try adOf(noContext, "{advertisingId: \(ad)}") == ad)
        #expect(try adOf(noContext, "{advertisingId: \(ad), trackingStatus: 2}") == nil)
        #expect(try adOf(noContext, "{advertisingId: 00000000-0000-0000-0000-000000000000}") == nil)
        #expect(try adOf(noContext, "{advertisingId: \(ad), adTrackingEnabled: false}") == nil)
        #expect(try adOf(denied, "{advertisingId: \(ad)}") == nil, "the event's denial covers the config's id")
        #expect(try adOf(deniedAtContext, "{advertisingId: \(ad), model: X}") == nil)
    }

    @Test func consentDropsAreCountedNotStoredAndExitZero() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let marker = "PAYLOAD-THE-USER-REFUSED-\(UUID().uuidString)"
        var lines: [String] = []
        for n in 0..<40 {
            let consent =
                n % 4 == 0
                ? #"{"isUserSubjectToGDPR":true,"hasConsentForDataUsage":false}"# : #"{"isUserSubjectToGDPR":true,"hasConsentForDataUsage":true}"#
            lines.append(
                #"{"type":"track","event":"\#(marker)","anonymousId":"a-\#(n)","properties":{"secret":"\#(marker)"},"context":{"consent":\#(consent)},\#(Self.ts)}"#
            )
        }
        try writeFile(dir + "/in.ndjson", lines.joined(separator: "\n") + "\n")
        try await RunTarget.run(dir: dir) { target in
            let report = try await replay(config: try writeRunConfig(dir: dir, url: target.url), inputs: [dir + "/in.ndjson"])
            #expect(report.status == .completed && report.status.exitCode == 0)
            #expect(report.events.consentDropped == 10 && report.events.delivered == 30 && report.events.deadLettered == 0)
            #expect(report.privacy["consent_dropped"] == 10)
            _ = try await target.received()
            // Nothing of a refused event is on disk in the state directory: not the dead letters, not the report.
            let state = dir + "/state"
            for name in try FileManager.default.subpathsOfDirectory(atPath: state) where name != "identity.sqlite" {
                guard let data = FileManager.default.contents(atPath: state + "/" + name) else { continue }
                #expect(!String(decoding: data, as: UTF8.self).contains(marker) || name == "collected.ndjson", "\(name)")
            }
            let required = try testConfig("privacy:\n  require_consent: true\n")
            let e = Enricher(config: required, identity: try IdentityStore(stateDirectory: nil))
            #expect(enrich(e, #"{"type":"page","anonymousId":"a",\#(Self.ts)}"#) == .skipped(.consentDropped))
            #expect(
                enrich(e, #"{"type":"page","anonymousId":"a",\#(Self.ts),"context":{"consent":{"isUserSubjectToGDPR":false}}}"#)
                    != .skipped(.consentDropped))
        }
    }

    @Test func theSameStateAgainstAnotherDestinationIsRefused() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (text, _) = generateEvents(count: 20)
        try writeFile(dir + "/in.ndjson", text)
        try await RunTarget.run(dir: dir, name: "first", writeKey: "key-one") { first in
            #expect(
                try await replay(config: try writeRunConfig(dir: dir, url: first.url, writeKey: "key-one"), inputs: [dir + "/in.ndjson"]).events
                    .delivered
                    == 20)
            _ = try await first.received()
            try await RunTarget.run(dir: dir, name: "second", writeKey: "key-two") { second in
                let config = try writeRunConfig(dir: dir, url: second.url, writeKey: "key-two")
                let error = await #expect(throws: UsageError.self) { _ = try await replay(config: config, inputs: [dir + "/in.ndjson"]) }
                #expect(error.map { "\($0)".contains("belongs to") && !"\($0)".contains("key-one") } == true, "\(String(describing: error))")
                let fresh = try await replay(config: config, inputs: [dir + "/in.ndjson"], fresh: true)
                #expect(fresh.events.delivered == 20)
                #expect(try await second.received().events.count == 20)
            }
        }
    }

    @Test func historicalFields() throws {
        let original = #"{"type":"track","event":"E","anonymousId":"a","originalTimestamp":"2021-03-04T05:06:07.089+01:00"}"#
        let o = try #require(try Self.event(original))
        #expect(o["originalTimestamp"]?.stringValue == "2021-03-04T05:06:07.089+01:00")
        #expect(o["timestamp"] == nil, "the event keeps the fields it was given")
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        _ = enrich(e, original)
        #expect(e.stats.originalTimestampsUsed == 1)
        #expect(reason(enrich(e, #"{"type":"alias","anonymousId":"a",\#(Self.ts)}"#)) == "invalid_alias")
    }

    @Test func dropPropertiesTakesDottedPaths() throws {
        let yaml = "privacy:\n  drop_properties: [email, properties.user.phone, context.traits.phone, address.street]\n"
        let line =
            #"{"type":"identify","anonymousId":"a",\#(Self.ts),"properties":{"email":"x","user":{"phone":"1","name":"n"}},"traits":{"email":"y","address":{"street":"s","city":"c"}},"context":{"traits":{"phone":"2","email":"z","plan":"p"}}}"#
        let o = try #require(try Self.event(line, yaml))
        let properties = o["properties"]?.objectValue
        #expect(properties?["email"] == nil && properties?["user"]?.objectValue?["phone"] == nil)
        #expect(properties?["user"]?.objectValue?["name"]?.stringValue == "n")
        #expect(o["traits"]?.objectValue?["email"] == nil && o["traits"]?.objectValue?["address"]?.objectValue?["street"] == nil)
        #expect(o["traits"]?.objectValue?["address"]?.objectValue?["city"]?.stringValue == "c")
        let traits = o["context"]?.objectValue?["traits"]?.objectValue
        #expect(traits?["phone"] == nil && traits?["email"] == nil && traits?["plan"]?.stringValue == "p")
        #expect(throws: ConfigError.self) { try testConfig("privacy:\n  drop_properties: [properties]\n") }
    }
}

extension DerivedAnonymousId {
    /// The derived anonymousId of `userId`, as a String.
    static func make(userId: String) -> String {
        var id = userId
        // The text lives in the buffer: it is read while the buffer is alive.
        let buffer = DerivedIdBuffer()
        return withExtendedLifetime(buffer) { id.withUTF8 { String(decoding: buffer.derived(userId: $0), as: UTF8.self) } }
    }
}
