import Foundation
import JSONCore
import MetaRouter
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// Each MetaRouter SDK's offline queue, written as that SDK writes it (``SDKQueue``), replayed
/// end to end: every event arrives, nothing is dead-lettered, the run exits 0, and each alias
/// arrives as the SDK wrote it.
struct SDKQueueReplayTests {
    /// An hour ago: inside the SDKs' 7-day rule.
    static let start = Date().addingTimeInterval(-3600)

    static func session(_ anonymousId: String, seed: Int) -> SDKQueue.Session {
        SDKQueue.Session(anonymousId: anonymousId, start: start, seed: seed)
    }

    enum SDK: String, CaseIterable, CustomStringConvertible {
        case iosVersionFirst, iosEventsFirst, android, reactNative
        var description: String { rawValue }

        func queue(_ s: SDKQueue.Session) -> String {
            switch self {
            case .iosVersionFirst: SDKQueue.ios(s)
            case .iosEventsFirst: SDKQueue.ios(s, eventsFirst: true)
            case .android: SDKQueue.android(s)
            case .reactNative: SDKQueue.reactNative(s)
            }
        }

        var uppercaseIds: Bool { self == .iosVersionFirst || self == .iosEventsFirst }
    }

    /// Writes `text` to `dir/name` and replays it (with `more` inputs after it) into a collector.
    static func replayQueue(
        _ text: String, dir: String, name: String = "queue.v1.json", more: [String] = []
    ) async throws -> (report: RunReport, events: [String: JSONObject]) {
        let path = dir + "/" + name
        try writeFile(path, text)
        return try await RunTarget.run(dir: dir) { target in
            let report = try await replay(config: try writeRunConfig(dir: dir, url: target.url), inputs: [path] + more)
            return (report, try await target.received().events)
        }
    }

    @Test(arguments: SDK.allCases)
    func everyEventOfTheQueueArrivesAndTheAliasAsWritten(sdk: SDK) async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = Self.session("3f1c2a9e-8b7d-4c6e-9a21-0d5f4b3c2e1a", seed: 1)
        let (report, got) = try await Self.replayQueue(sdk.queue(s), dir: dir)
        #expect(report.status == .completed && report.status.exitCode == 0, "\(report.summary)")
        #expect(report.events.delivered == 7 && report.events.deadLettered == 0, "\(report.deadLetterReasons)")
        let ids = SDKQueue.messageIds(s, uppercase: sdk.uppercaseIds)
        #expect(Set(got.keys) == Set(ids))
        let alias = try #require(got[ids[4]])
        #expect(alias["type"]?.stringValue == "alias")
        #expect(alias["userId"]?.stringValue == s.newUserId)
        #expect(alias["anonymousId"]?.stringValue == s.anonymousId)
        #expect(alias["groupId"]?.stringValue == s.groupId)
        #expect(alias["previousId"] == nil, "no previousId is added")
        #expect(report.privacy["advertising_ids_removed", default: 0] == 0, "an SDK's null advertisingId is no advertisingId")
        if sdk == .android {
            let device = got[ids[0]]?["context"]?.objectValue?["device"]?.objectValue
            #expect(device?["advertisingId"]?.isNull == true, "Android's explicit null is kept as written")
            #expect(got[ids[0]]?["userId"]?.isNull == true && got[ids[0]]?["event"]?.stringValue == "Product Viewed")
        }
    }

    @Test func aCarriedUserFollowsAnSDKAlias() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = Self.session("c2a4e6f8-1b3d-4f5a-9c7e-2d4f6a8b0c1e", seed: 2)
        // A server-side log of the same device after the queue: its events name no user.
        let later = dir + "/server.ndjson"
        let t = SDKQueue.time(s, 30, millis: true)
        try writeFile(
            later,
            """
            {"type":"track","event":"Refund Requested","anonymousId":"\(s.anonymousId)","messageId":"srv-1","timestamp":"\(t)"}
            {"type":"track","event":"Refund Approved","userId":"\(s.newUserId)","anonymousId":"other-device","messageId":"srv-2","timestamp":"\(t)"}

            """)
        let (report, got) = try await Self.replayQueue(SDKQueue.reactNative(s), dir: dir, more: [later])
        #expect(report.events.deadLettered == 0 && report.status.exitCode == 0)
        #expect(got["srv-1"]?["userId"]?.stringValue == s.newUserId, "the device carries the aliased user")
        #expect(got["srv-1"]?["groupId"]?.stringValue == s.groupId, "and its group")
        #expect(got["srv-2"]?["groupId"]?.stringValue == s.groupId, "the new user's other events carry the moved group")
    }

    @Test func aPlaceholderAnonymousIdLendsNoUserAcrossDevices() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Device A identified as user-rn-A while its id was still "unknown"; device B's first
        // events say "unknown" too, and name no user.
        var a = Self.session("a0000000-0000-4000-8000-00000000000a", seed: 3)
        a.userId = "user-rn-A"
        a.newUserId = "user-rn-A2"
        var b = Self.session("b0000000-0000-4000-8000-00000000000b", seed: 4)
        b.userId = "user-rn-B"
        try FileManager.default.createDirectory(atPath: dir + "/b", withIntermediateDirectories: true)
        try writeFile(dir + "/b/queue.v1.json", SDKQueue.reactNative(b, unknownUntil: 2))
        let (report, got) = try await Self.replayQueue(
            SDKQueue.reactNative(a, unknownUntil: 3), dir: dir, more: [dir + "/b/queue.v1.json"])
        #expect(report.events.delivered == 14 && report.events.deadLettered == 0 && report.status.exitCode == 0)
        let bIds = SDKQueue.messageIds(b)
        let bFirst = try #require(got[bIds[0]])
        #expect(bFirst["anonymousId"]?.stringValue == "unknown", "sent as written")
        #expect(bFirst["userId"] == nil, "device A's user is not lent to device B")
        #expect(bFirst["groupId"] == nil)
        let aIdentify = try #require(got[SDKQueue.messageIds(a)[1]])
        #expect(aIdentify["anonymousId"]?.stringValue == "unknown" && aIdentify["userId"]?.stringValue == "user-rn-A")
    }

    @Test func aDamagedIOSQueueDeliversItsCompleteEventsAliasIncluded() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = Self.session("3f1c2a9e-8b7d-4c6e-9a21-0d5f4b3c2e1a", seed: 5)
        let whole = SDKQueue.ios(s)
        let ids = SDKQueue.messageIds(s, uppercase: true)
        // Cut in the middle of the sixth event (after the alias), as a crash mid-write leaves it.
        let cut = try #require(whole.range(of: "\"messageId\":\"\(ids[5])\""))
        let (report, got) = try await Self.replayQueue(String(whole[..<cut.upperBound]), dir: dir)
        #expect(report.events.delivered == 5, "\(report.summary)")
        #expect(report.deadLetterReasons == ["damaged_snapshot": 1], "the rest is dead-lettered whole")
        #expect(got[ids[4]]?["type"]?.stringValue == "alias" && got[ids[4]]?["previousId"] == nil)
    }

    @Test func aQueueTheClientLibraryWritesReplaysWithNothingDeadLettered() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var options = ClientOptions(writeKey: "wk", ingestionHost: "http://127.0.0.1:9")
        options.autoStart = false  // nothing is sent: every call ends in the snapshot
        options.diskQueuePath = dir + "/queue.v1.json"
        let client = try MetaRouterClient(options: options)
        let anonymousId = await client.anonymousId
        await client.track("Product Viewed", properties: ["sku": "SKU-1"])
        await client.identify("user-42", traits: ["plan": "pro"])
        await client.group("acct-7")
        await client.alias("user-42-new")
        await client.screen("Home")
        await client.shutdown()
        let text = try String(contentsOfFile: dir + "/queue.v1.json", encoding: .utf8)
        try await RunTarget.run(dir: dir) { target in
            let report = try await replay(config: try writeRunConfig(dir: dir, url: target.url), inputs: [dir + "/queue.v1.json"])
            let got = try await target.received().events.values
            #expect(report.events.delivered == 5 && report.events.deadLettered == 0 && report.status.exitCode == 0, "\(text)")
            let alias = try #require(got.first { $0["type"]?.stringValue == "alias" })
            #expect(alias["userId"]?.stringValue == "user-42-new" && alias["anonymousId"]?.stringValue == anonymousId)
            #expect(alias["groupId"]?.stringValue == "acct-7" && alias["previousId"] == nil, "the SDKs' shape")
        }
    }
}
