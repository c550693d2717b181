import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import ReplayKit
import Testing

/// The enricher's per-line shortcuts and reused scratch storage give what the general path and
/// a fresh enricher give.
struct EnricherReuseTests {
    @Test(arguments: [
        "{}", #"{"locale":"ja-JP"}"#, #" { "locale" : "de" , "ip":"1.2.3.4", "locale":"x" } "#,
        #"{"traits":{"email":"a@b.c"},"page":{"path":"/"}}"#, #"{"oss":1,"ap":2,"devices":3}"#,
    ])
    func contextFastPathRendersWhatTheEditorRenders(text: String) throws {
        let id = try IdentityStore(stateDirectory: nil)
        let e = Enricher(config: try testConfig(), identity: id)
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBufferPointer { buf in
            let ctx = try ObjectLayout.scanDocument(buf)
            var preparer = e.preparer
            let fast = preparer.contextWithLibraryOnly(ctx, buf)
            let quick = try #require(fast)
            var general = ObjectEditor(ctx)
            general.set("library", raw: LibraryMember.json, in: buf)
            #expect(String(decoding: quick, as: UTF8.self) == String(decoding: general.rendered(buf), as: UTF8.self), "\(text)")
        }
    }

    /// The event names its own library: kept byte for byte, as the general path keeps it.
    @Test(arguments: [#"{"library":{}}"#, #"{"locale":"x","library":{"name":"analytics-ios","version":"1.2"}}"#])
    func contextWithItsOwnLibraryIsKept(text: String) throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        let bytes = Array(text.utf8)
        var e2 = e.preparer
        try bytes.withUnsafeBufferPointer { buf in
            let ctx = try ObjectLayout.scanDocument(buf)
            #expect(e2.contextWithLibraryOnly(ctx, buf) == bytes, "\(text)")
            guard case .success(let general) = e2.enrichContext(ctx, buf) else {
                Issue.record("\(text)")
                return
            }
            #expect(general == bytes, "\(text)")
        }
    }

    /// Contexts the fast path must leave to the general path (see also `ContextFastPathTests`).
    @Test(arguments: [
        #"{"library":null}"#, #"{"app":1}"#, #"{"device":{"advertisingId":"7A3CBB5E-9F16-4A6D-8E4B-2C1F0D9E8A77"}}"#,
        #"{"os":[]}"#, #"{"\u006fs":1}"#,
    ])
    func contextFastPathDeclines(text: String) throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        let bytes = Array(text.utf8)
        var preparer = e.preparer
        try bytes.withUnsafeBufferPointer { buf in
            let ctx = try ObjectLayout.scanDocument(buf)
            #expect(preparer.contextWithLibraryOnly(ctx, buf) == nil, "\(text)")
        }
    }

    /// With configured context defaults or context drops there is no fast path.
    @Test func contextFastPathNeedsNoDefaultsAndNoDrops() throws {
        let id = try IdentityStore(stateDirectory: nil)
        let withDefaults = Enricher(config: try testConfig("enrichment:\n  context:\n    locale: en-US\n"), identity: id)
        let plain = Array(#"{"ip":"1"}"#.utf8)
        var defaultsPreparer = withDefaults.preparer
        try plain.withUnsafeBufferPointer { buf in
            let ctx = try ObjectLayout.scanDocument(buf)
            #expect(defaultsPreparer.contextWithLibraryOnly(ctx, buf) == nil)
        }
        let withDrops = Enricher(config: try testConfig("privacy:\n  drop_properties: [email]\n"), identity: id)
        var dropsPreparer = withDrops.preparer
        try plain.withUnsafeBufferPointer { buf in
            let ctx = try ObjectLayout.scanDocument(buf)
            #expect(dropsPreparer.contextWithLibraryOnly(ctx, buf) == nil)
        }
    }

    @Test func enricherReusedAcrossLinesGivesTheSameEventsAsFreshOnes() throws {
        let lines = [
            #"{"type":"track","event":"A","anonymousId":"a1","timestamp":"2024-01-01T00:00:00Z","context":{"locale":"x","app":{"v":1}},"properties":{"p":1}}"#,
            #"{"type":"identify","userId":"u1","anonymousId":"a1","timestamp":"2024-01-01T00:00:01Z"}"#,
            #"{"type":"page","anonymousId":"a1","timestamp":"2024-01-01T00:00:02Z","context":{"ip":"1","ip":"2"},"sentAt":"s"}"#,
            "not json",
            #"{"type":"track","event":"B","timestamp":"2024-01-01T00:00:03Z","context":{"device":{"advertisingId":"00000000-0000-0000-0000-000000000000"}}}"#,
            #"{"type":"screen","name":"S","anonymousId":"a1","timestamp":"2024-01-01T00:00:04Z","context":[]}"#,
            #"{"type":"group","groupId":"g","userId":"u1","timestamp":"2024-01-01T00:00:05Z","context":{}}"#,
        ]
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hotpath-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let reusedStore = try IdentityStore(stateDirectory: dir + "/a", makeUUID: { "dev" })
        let reused = Enricher(config: try testConfig(), identity: reusedStore, nowMillis: { 0 })
        let freshStore = try IdentityStore(stateDirectory: dir + "/b", makeUUID: { "dev" })
        for (n, line) in lines.enumerated() {
            let fresh = Enricher(config: try testConfig(), identity: freshStore, nowMillis: { 0 })
            #expect(
                enrich(reused, line, lineNumber: n + 1, sequence: UInt64(n + 1)) == enrich(fresh, line, lineNumber: n + 1, sequence: UInt64(n + 1)),
                "\(line)")
        }
    }
}
