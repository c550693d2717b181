import Foundation
import JSONCore
import MetaRouter
import Testing
@testable import ReplayKit

/// The identity store answers misses from memory only while its cache is provably complete.
final class IdentityCacheTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    @Test func evictedAndPreexistingRowsAreStillFoundInSQLite() throws {
        let a = try IdentityStore(stateDirectory: dir)
        a.setCacheLimit(2)
        for k in 1...5 { a.learnUser(anonymousId: "a\(k)", userId: "u\(k)", sequence: UInt64(k)) }
        a.learnGroup(userId: "u1", groupId: "g1", sequence: 6)
        try a.commitAll()
        #expect(a.uncommittedCount == 0)
        for k in 1...5 { #expect(try a.userId(forAnonymousId: "a\(k)") == "u\(k)") }
        #expect(try a.userId(forAnonymousId: "nobody") == nil)
        #expect(try a.groupId(forUserId: "u1") == "g1")
        a.close()

        let b = try IdentityStore(stateDirectory: dir)
        #expect(try b.userId(forAnonymousId: "a3") == "u3")
        #expect(try b.groupId(forUserId: "u1") == "g1")
        #expect(try b.groupId(forUserId: "u2") == nil)
        try b.forgetLearnedIdentities()
        #expect(try b.userId(forAnonymousId: "a3") == nil)
        b.learnUser(anonymousId: "a9", userId: "u9", sequence: 1)
        try b.commitAll()
        #expect(try b.userId(forAnonymousId: "a9") == "u9")
        b.close()
    }

    /// Commits write keys in sorted order with duplicates collapsed; the tables must still end
    /// up as if every mapping were applied in learning order.
    @Test func sortedCommitKeepsTheLastValueLearned() throws {
        let a = try IdentityStore(stateDirectory: dir)
        let keys = ["z", "a", "m", "a", "z", "b", "a"]
        for (i, k) in keys.enumerated() { a.learnUser(anonymousId: k, userId: "\(k)\(i)", sequence: UInt64(i + 1)) }
        a.learnGroup(userId: "u", groupId: "g1", sequence: 8)
        a.learnGroup(userId: "u", groupId: "g2", sequence: 9)
        try a.commit(throughSequence: 5)  // a→a3, z→z4, m→m2 are committed; b5 and a6 are not
        #expect(try a.userId(forAnonymousId: "a") == "a6")  // memory has the newest value
        #expect(a.uncommittedCount == 4)
        a.close()  // crash: the uncommitted rest is lost

        let b = try IdentityStore(stateDirectory: dir)
        #expect(try b.userId(forAnonymousId: "a") == "a3")
        #expect(try b.userId(forAnonymousId: "z") == "z4")
        #expect(try b.userId(forAnonymousId: "m") == "m2")
        #expect(try b.userId(forAnonymousId: "b") == nil)
        #expect(try b.groupId(forUserId: "u") == nil)
        for (i, k) in keys.enumerated() { b.learnUser(anonymousId: k, userId: "\(k)\(i)", sequence: UInt64(i + 1)) }
        b.learnGroup(userId: "u", groupId: "g1", sequence: 8)
        b.learnGroup(userId: "u", groupId: "g2", sequence: 9)
        try b.commitAll()
        b.close()

        let c = try IdentityStore(stateDirectory: dir)
        #expect(try c.userId(forAnonymousId: "a") == "a6")
        #expect(try c.userId(forAnonymousId: "b") == "b5")
        #expect(try c.groupId(forUserId: "u") == "g2")
        c.close()
    }

    /// Ids that are canonically equivalent but different bytes ("café" as NFC and as NFD) are two
    /// ids, in memory and in SQLite alike (Swift's String equality would merge them).
    @Test func idsAreComparedAsBytes() throws {
        let nfc = "caf\u{e9}", nfd = "cafe\u{301}"
        #expect(nfc == nfd)  // what a String-keyed map would do
        let a = try IdentityStore(stateDirectory: dir)
        a.learnUser(anonymousId: nfc, userId: "u1", sequence: 1)
        a.learnUser(anonymousId: nfd, userId: "u2", sequence: 2)
        #expect(try a.userId(forAnonymousId: nfc) == "u1")
        #expect(try a.userId(forAnonymousId: nfd) == "u2")
        try a.commitAll()
        a.close()
        let b = try IdentityStore(stateDirectory: dir)
        #expect(try b.userId(forAnonymousId: nfc) == "u1")
        #expect(try b.userId(forAnonymousId: nfd) == "u2")
        b.close()
    }

    /// A full map evicts only committed entries: uncommitted ones exist nowhere else.
    @Test func evictionKeepsUncommittedMappings() throws {
        let a = try IdentityStore(stateDirectory: dir)
        a.setCacheLimit(4)
        for k in 1...3 { a.learnUser(anonymousId: "c\(k)", userId: "u\(k)", sequence: UInt64(k)) }
        try a.commitAll()
        for k in 4...9 { a.learnUser(anonymousId: "c\(k)", userId: "u\(k)", sequence: UInt64(k)) }
        // Memory was full several times; every mapping is still found (committed ones in SQLite).
        for k in 1...9 { #expect(try a.userId(forAnonymousId: "c\(k)") == "u\(k)", "c\(k)") }
        #expect(try a.userId(forAnonymousId: "c10") == nil)
        #expect(a.uncommittedCount == 6)
        try a.commitAll()
        a.close()
        let b = try IdentityStore(stateDirectory: dir)
        for k in 1...9 { #expect(try b.userId(forAnonymousId: "c\(k)") == "u\(k)") }
        b.close()
    }

    @Test func contextFastPathRendersWhatTheEditorRenders() throws {
        let id = try IdentityStore(stateDirectory: nil)
        let e = Enricher(config: try testConfig(), identity: id)
        let contexts = [
            "{}", #"{"locale":"ja-JP"}"#, #" { "locale" : "de" , "ip":"1.2.3.4", "locale":"x" } "#,
            #"{"traits":{"email":"a@b.c"},"page":{"path":"/"}}"#, #"{"oss":1,"ap":2,"devices":3}"#,
        ]
        for text in contexts {
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { buf in
                let ctx = try ObjectLayout.scanDocument(buf)
                let quick = try #require(e.preparer.contextWithLibraryOnly(ctx, buf))
                var general = ObjectEditor(ctx)
                general.set("library", raw: e.preparer.libraryJSON, in: buf)
                #expect(String(decoding: quick, as: UTF8.self) == String(decoding: general.rendered(buf), as: UTF8.self), "\(text)")
            }
        }
        for text in [#"{"library":{}}"#, #"{"locale":"x","library":{"name":"analytics-ios","version":"1.2"}}"#] {
            // The event names its own library: kept byte for byte, as the general path keeps it.
            let bytes = Array(text.utf8)
            var e2 = e.preparer
            try bytes.withUnsafeBufferPointer { buf in
                let ctx = try ObjectLayout.scanDocument(buf)
                #expect(e.preparer.contextWithLibraryOnly(ctx, buf) == bytes, "\(text)")
                guard case .success(let general) = e2.enrichContext(ctx, buf) else {
            Issue.record("\(text)")
            return
        }
                #expect(general == bytes, "\(text)")
            }
        }
        for text in [#"{"library":null}"#, #"{"app":1}"#, #"{"device":{}}"#, #"{"os":null}"#, #"{"\u006fs":1}"#] {
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { buf in
                try #expect(e.preparer.contextWithLibraryOnly(ObjectLayout.scanDocument(buf), buf) == nil, "\(text)")
            }
        }
        let withDefaults = Enricher(config: try testConfig("enrichment:\n  context:\n    locale: en-US\n"), identity: id)
        let plain = Array(#"{"ip":"1"}"#.utf8)
        try plain.withUnsafeBufferPointer { buf in
            try #expect(withDefaults.preparer.contextWithLibraryOnly(ObjectLayout.scanDocument(buf), buf) == nil)
        }
        let withDrops = Enricher(config: try testConfig("privacy:\n  drop_properties: [email]\n"), identity: id)
        try plain.withUnsafeBufferPointer { buf in
            try #expect(withDrops.preparer.contextWithLibraryOnly(ObjectLayout.scanDocument(buf), buf) == nil)
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
            #expect(enrich(reused, line, lineNumber: n + 1, sequence: UInt64(n + 1)) == enrich(fresh, line, lineNumber: n + 1, sequence: UInt64(n + 1)), "\(line)")
        }
    }
}
