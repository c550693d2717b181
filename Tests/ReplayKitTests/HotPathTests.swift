import Foundation
import JSONCore
import XCTest
@testable import ReplayKit

/// The single-pass lookups of the enrichment hot path agree with the general layout API,
/// including duplicate and escaped keys.
final class HotPathTests: XCTestCase {
    private func top(_ text: String) throws -> (TopLevelMembers, ObjectLayout, [UInt8]) {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buf in
            let layout = try ObjectLayout.scanDocument(buf)
            return (TopLevelMembers(layout, buf), layout, bytes)
        }
    }

    func testFindsLastOfEachKnownKeyLikeMemberLookup() throws {
        let text = #"{"type":"track","userId":"u1","x":1,"userId":"u2","context":{},"\u0074raits":{"a":1},"messageId":"m"}"#
        let (t, layout, bytes) = try top(text)
        bytes.withUnsafeBufferPointer { buf in
            XCTAssertEqual(t.type, layout.index(of: "type", in: buf))
            XCTAssertEqual(t.userId, 3)
            XCTAssertEqual(t.userId, layout.index(of: "userId", in: buf))
            XCTAssertEqual(t.traits, layout.index(of: "traits", in: buf))
            XCTAssertEqual(t.traits, 5)
            XCTAssertEqual(t.messageId, 6)
            XCTAssertEqual(t.context, 4)
            XCTAssertNil(t.anonymousId)
            XCTAssertNil(t.timestamp)
        }
        XCTAssertTrue(t.hasDuplicates)
        let (single, _, _) = try top(#"{"type":"page","anonymousId":"a","timestamp":"t","sentAt":"s"}"#)
        XCTAssertFalse(single.hasDuplicates)
        XCTAssertEqual(single.sentAt, 3)
    }

    func testEventTypeReadsRawAndEscapedSpellings() {
        func type(_ json: String) -> EventType? {
            let bytes = Array(json.utf8)
            return bytes.withUnsafeBufferPointer { EventType($0, 0..<$0.count) }
        }
        XCTAssertEqual(type(#""track""#), .track)
        XCTAssertEqual(type(#""identify""#), .identify)
        XCTAssertEqual(type(#""alias""#), .alias)
        XCTAssertEqual(type(#""tr\u0061ck""#), .track)
        XCTAssertNil(type(#""Track""#))
        XCTAssertNil(type(#""tracks""#))
        XCTAssertNil(type(#""""#))
    }

    func testDuplicateContextIsCollapsedIntoOneEnrichedContext() throws {
        let id = try IdentityStore(stateDirectory: nil)
        let e = Enricher(config: try testConfig(), identity: id)
        let line = #"{"type":"page","anonymousId":"a","timestamp":"2024-01-01T00:00:00Z","context":{"x":1},"context":{"locale":"de-CH"}}"#
        guard case .event(let bytes, _) = enrich(e, line) else { return XCTFail("not an event") }
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertEqual(text.components(separatedBy: "\"context\"").count, 2, text)
        XCTAssertTrue(text.contains(#""locale":"de-CH""#), text)
        XCTAssertFalse(text.contains(#""x":1"#), text)
    }

    func testUUIDFormatting() {
        var out: [UInt8] = []
        StableMessageId.appendUUID(0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, to: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "01234567-89ab-cdef-fedc-ba9876543210")
    }

    /// The messageId written straight into bytes is `"<millis>-<uuid>"`, with millis printed as
    /// Swift prints them (negative values and both extremes included) and a lowercase version-8 UUID.
    func testQuotedMessageIdIsMillisThenUUID() throws {
        let line = Array(#"{"type":"page"}"#.utf8)
        try line.withUnsafeBufferPointer { buf in
            for millis: Int64 in [0, 7, -1_000, 1_704_067_201_500, .max, .min] {
                let q = StableMessageId.quoted(line: buf, lineNumber: 3, millis: millis)
                let text = String(decoding: q, as: UTF8.self)
                XCTAssertTrue(text.hasPrefix("\"\(millis)-"), text)
                let uuid = try XCTUnwrap(UUID(uuidString: String(text.dropFirst("\"\(millis)-".count).dropLast())), text)
                XCTAssertEqual(uuid.uuidString.lowercased(), String(text.dropFirst("\"\(millis)-".count).dropLast()))
                XCTAssertEqual(Array(uuid.uuidString)[14], "8")  // version 8
            }
        }
    }

    /// For objects without duplicate keys, the direct renderer gives exactly the bytes the
    /// general `ObjectEditor` gives for the same edits: on generated objects (members present or
    /// missing, in any order, with whitespace and escaped keys) and every subset of edits.
    func testDirectRenderMatchesTheEditor() throws {
        var rng = SeededRandom(state: 20_261_122)
        let names = ["type", "timestamp", "sentAt", "writeKey", "anonymousId", "userId", "groupId", "messageId",
                     "properties", "traits", "context", "event", "extra"]
        let values = [#""s""#, "1", "null", #"{"k":[1,{"z":"é"}]}"#, "[]", #""""#, "true"]
        var checked = 0
        for _ in 0..<3_000 {
            var members: [String] = []
            for name in names.shuffled(using: &rng) where rng.next() % 3 != 0 {
                // Sometimes an escaped spelling of the key (`"\u0074ype"` for `"type"`).
                let key = rng.next() % 7 == 0 ? "\\u00" + String(name.unicodeScalars.first!.value, radix: 16) + name.dropFirst() : name
                let ws = rng.next() % 4 == 0 ? " " : ""
                members.append("\(ws)\"\(key)\"\(ws):\(ws)\(values[Int(rng.next() % UInt64(values.count))])\(ws)")
            }
            let line = Array(("{" + members.joined(separator: ",") + "}").utf8)
            var edits = TopLevelEdits()
            func maybe(_ v: String) -> MemberValue? { rng.next() % 2 == 0 ? .bytes(Array(v.utf8)) : nil }
            edits.timestamp = maybe(#""2024-01-01T00:00:00Z""#)
            edits.removeSentAt = rng.next() % 2 == 0
            edits.removeWriteKey = rng.next() % 2 == 0
            edits.anonymousId = maybe(#""anon""#)
            edits.userId = rng.next() % 3 == 0 ? .identity(IdentityValue(raw: Array("u\"1".utf8))) : maybe(#""u""#)
            edits.groupId = rng.next() % 3 == 0 ? .identity(IdentityValue(raw: Array("group-id-longer-than-16".utf8))) : maybe(#""g""#)
            edits.messageId = rng.next() % 3 == 0 ? .messageId(StableMessageId.Parts(millis: 7, a: 1, b: 2)) : maybe(#""m-1""#)
            edits.properties = maybe("{}")
            edits.traits = maybe(#"{"a":1}"#)
            edits.context = maybe(#"{"library":{"name":"mr-replay"}}"#)
            try line.withUnsafeBufferPointer { buf in
                let layout = try ObjectLayout.scanDocument(buf)
                let top = TopLevelMembers(layout, buf)
                XCTAssertFalse(top.hasDuplicates)
                var direct: [UInt8] = []
                edits.render(layout, top, buf, into: &direct)
                var editor = ObjectEditor(layout)
                edits.apply(to: &editor, buf)
                let general = editor.rendered(buf)
                XCTAssertEqual(String(decoding: direct, as: UTF8.self), String(decoding: general, as: UTF8.self))
                XCTAssertNoThrow(try direct.withUnsafeBufferPointer { try JSONScanner.validate($0) })
                checked += 1
            }
        }
        XCTAssertEqual(checked, 3_000)
    }

    func testRenderedCapacityCoversTheOutput() throws {
        let text = #"{"a":1,"b":"xx","c":[1,2]}"#
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBufferPointer { buf in
            var editor = ObjectEditor(try ObjectLayout.scanDocument(buf))
            editor.replace(at: 1, raw: Array(#""a much longer value than before""#.utf8))
            editor.set("new", raw: Array("true".utf8), in: buf)
            let out = editor.rendered(buf)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), #"{"a":1,"b":"a much longer value than before","c":[1,2],"new":true}"#)
            XCTAssertGreaterThanOrEqual(editor.renderedCapacity, out.count)
        }
    }
}

/// The identity store answers misses from memory only while its cache is provably complete.
final class IdentityCacheTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testEvictedAndPreexistingRowsAreStillFoundInSQLite() throws {
        let a = try IdentityStore(stateDirectory: dir)
        a.setCacheLimit(2)
        for k in 1...5 { a.learnUser(anonymousId: "a\(k)", userId: "u\(k)", sequence: UInt64(k)) }
        a.learnGroup(userId: "u1", groupId: "g1", sequence: 6)
        try a.commitAll()
        XCTAssertEqual(a.uncommittedCount, 0)
        for k in 1...5 { XCTAssertEqual(try a.userId(forAnonymousId: "a\(k)"), "u\(k)") }
        XCTAssertNil(try a.userId(forAnonymousId: "nobody"))
        XCTAssertEqual(try a.groupId(forUserId: "u1"), "g1")
        a.close()

        let b = try IdentityStore(stateDirectory: dir)
        XCTAssertEqual(try b.userId(forAnonymousId: "a3"), "u3")
        XCTAssertEqual(try b.groupId(forUserId: "u1"), "g1")
        XCTAssertNil(try b.groupId(forUserId: "u2"))
        try b.forgetLearnedIdentities()
        XCTAssertNil(try b.userId(forAnonymousId: "a3"))
        b.learnUser(anonymousId: "a9", userId: "u9", sequence: 1)
        try b.commitAll()
        XCTAssertEqual(try b.userId(forAnonymousId: "a9"), "u9")
        b.close()
    }

    /// Commits write keys in sorted order with duplicates collapsed; the tables must still end
    /// up as if every mapping were applied in learning order.
    func testSortedCommitKeepsTheLastValueLearned() throws {
        let a = try IdentityStore(stateDirectory: dir)
        let keys = ["z", "a", "m", "a", "z", "b", "a"]
        for (i, k) in keys.enumerated() { a.learnUser(anonymousId: k, userId: "\(k)\(i)", sequence: UInt64(i + 1)) }
        a.learnGroup(userId: "u", groupId: "g1", sequence: 8)
        a.learnGroup(userId: "u", groupId: "g2", sequence: 9)
        try a.commit(throughSequence: 5)  // a→a3, z→z4, m→m2 are committed; b5 and a6 are not
        XCTAssertEqual(try a.userId(forAnonymousId: "a"), "a6")  // memory has the newest value
        XCTAssertEqual(a.uncommittedCount, 4)
        a.close()  // crash: the uncommitted rest is lost

        let b = try IdentityStore(stateDirectory: dir)
        XCTAssertEqual(try b.userId(forAnonymousId: "a"), "a3")
        XCTAssertEqual(try b.userId(forAnonymousId: "z"), "z4")
        XCTAssertEqual(try b.userId(forAnonymousId: "m"), "m2")
        XCTAssertNil(try b.userId(forAnonymousId: "b"))
        XCTAssertNil(try b.groupId(forUserId: "u"))
        for (i, k) in keys.enumerated() { b.learnUser(anonymousId: k, userId: "\(k)\(i)", sequence: UInt64(i + 1)) }
        b.learnGroup(userId: "u", groupId: "g1", sequence: 8)
        b.learnGroup(userId: "u", groupId: "g2", sequence: 9)
        try b.commitAll()
        b.close()

        let c = try IdentityStore(stateDirectory: dir)
        XCTAssertEqual(try c.userId(forAnonymousId: "a"), "a6")
        XCTAssertEqual(try c.userId(forAnonymousId: "b"), "b5")
        XCTAssertEqual(try c.groupId(forUserId: "u"), "g2")
        c.close()
    }

    /// Ids that are canonically equivalent but different bytes ("café" as NFC and as NFD) are two
    /// ids, in memory and in SQLite alike (Swift's String equality would merge them).
    func testIdsAreComparedAsBytes() throws {
        let nfc = "caf\u{e9}", nfd = "cafe\u{301}"
        XCTAssertEqual(nfc, nfd)  // what a String-keyed map would do
        let a = try IdentityStore(stateDirectory: dir)
        a.learnUser(anonymousId: nfc, userId: "u1", sequence: 1)
        a.learnUser(anonymousId: nfd, userId: "u2", sequence: 2)
        XCTAssertEqual(try a.userId(forAnonymousId: nfc), "u1")
        XCTAssertEqual(try a.userId(forAnonymousId: nfd), "u2")
        try a.commitAll()
        a.close()
        let b = try IdentityStore(stateDirectory: dir)
        XCTAssertEqual(try b.userId(forAnonymousId: nfc), "u1")
        XCTAssertEqual(try b.userId(forAnonymousId: nfd), "u2")
        b.close()
    }

    /// A full map evicts only committed entries: uncommitted ones exist nowhere else.
    func testEvictionKeepsUncommittedMappings() throws {
        let a = try IdentityStore(stateDirectory: dir)
        a.setCacheLimit(4)
        for k in 1...3 { a.learnUser(anonymousId: "c\(k)", userId: "u\(k)", sequence: UInt64(k)) }
        try a.commitAll()
        for k in 4...9 { a.learnUser(anonymousId: "c\(k)", userId: "u\(k)", sequence: UInt64(k)) }
        // Memory was full several times; every mapping is still found (committed ones in SQLite).
        for k in 1...9 { XCTAssertEqual(try a.userId(forAnonymousId: "c\(k)"), "u\(k)", "c\(k)") }
        XCTAssertNil(try a.userId(forAnonymousId: "c10"))
        XCTAssertEqual(a.uncommittedCount, 6)
        try a.commitAll()
        a.close()
        let b = try IdentityStore(stateDirectory: dir)
        for k in 1...9 { XCTAssertEqual(try b.userId(forAnonymousId: "c\(k)"), "u\(k)") }
        b.close()
    }

    func testContextFastPathRendersWhatTheEditorRenders() throws {
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
                let quick = try XCTUnwrap(e.preparer.contextWithLibraryOnly(ctx, buf), text)
                var general = ObjectEditor(ctx)
                general.set("library", raw: e.preparer.libraryJSON, in: buf)
                XCTAssertEqual(String(decoding: quick, as: UTF8.self), String(decoding: general.rendered(buf), as: UTF8.self), text)
            }
        }
        for text in [#"{"library":{}}"#, #"{"locale":"x","library":{"name":"analytics-ios","version":"1.2"}}"#] {
            // The event names its own library: kept byte for byte, as the general path keeps it.
            let bytes = Array(text.utf8)
            var e2 = e.preparer
            try bytes.withUnsafeBufferPointer { buf in
                let ctx = try ObjectLayout.scanDocument(buf)
                XCTAssertEqual(e.preparer.contextWithLibraryOnly(ctx, buf), bytes, text)
                guard case .success(let general) = e2.enrichContext(ctx, buf) else { return XCTFail(text) }
                XCTAssertEqual(general, bytes, text)
            }
        }
        for text in [#"{"library":null}"#, #"{"app":1}"#, #"{"device":{}}"#, #"{"os":null}"#, #"{"\u006fs":1}"#] {
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { buf in
                XCTAssertNil(e.preparer.contextWithLibraryOnly(try ObjectLayout.scanDocument(buf), buf), text)
            }
        }
        let withDefaults = Enricher(config: try testConfig("enrichment:\n  context:\n    locale: en-US\n"), identity: id)
        let plain = Array(#"{"ip":"1"}"#.utf8)
        try plain.withUnsafeBufferPointer { buf in
            XCTAssertNil(withDefaults.preparer.contextWithLibraryOnly(try ObjectLayout.scanDocument(buf), buf))
        }
        let withDrops = Enricher(config: try testConfig("privacy:\n  drop_properties: [email]\n"), identity: id)
        try plain.withUnsafeBufferPointer { buf in
            XCTAssertNil(withDrops.preparer.contextWithLibraryOnly(try ObjectLayout.scanDocument(buf), buf))
        }
    }

    func testEnricherReusedAcrossLinesGivesTheSameEventsAsFreshOnes() throws {
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
            XCTAssertEqual(enrich(reused, line, lineNumber: n + 1, sequence: UInt64(n + 1)),
                           enrich(fresh, line, lineNumber: n + 1, sequence: UInt64(n + 1)), line)
        }
    }
}

/// The byte-keyed identity tables: keys and values of every length around the inline limits,
/// escapes, and enough keys to grow the table many times, in memory and through SQLite.
final class IdentityMapTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// Keys of 0...40 bytes, values of 0...40 bytes (so their JSON is under, at and over 16),
    /// values that need escapes, and ids that differ only past the 16th byte.
    func ids() -> [(key: String, value: String)] {
        var out: [(String, String)] = []
        for n in 0...40 {
            out.append((String(repeating: "k", count: n), "v" + String(repeating: "w", count: max(0, n - 1))))
            out.append((String(repeating: "k", count: 17) + "\(n)", "same-prefix-\(n)"))
        }
        out.append(("quote", #"a"b\c"#))
        out.append(("newline", "line\nbreak"))
        out.append(("ü-key", "東京"))
        out.append(("escaped-16", #"0123456789abc""#))
        return out
    }

    func testEveryLengthAndEscapeRoundTripsInMemoryAndThroughSQLite() throws {
        let a = try IdentityStore(stateDirectory: dir)
        for (i, id) in ids().enumerated() {
            a.learnUser(anonymousId: id.key, userId: id.value, sequence: UInt64(i + 1))
            a.learnGroup(userId: id.key, groupId: id.value + "-g", sequence: UInt64(i + 1))
        }
        for id in ids() {
            XCTAssertEqual(try a.userId(forAnonymousId: id.key), id.value, id.key)
            XCTAssertEqual(try a.groupId(forUserId: id.key), id.value + "-g", id.key)
            var key = id.key
            let json = try key.withUTF8 { try a.userIdValue(forAnonymousId: $0) }?.json
            XCTAssertEqual(json, JSONStrings.quoted(id.value), "the spliced value is the quoted id")
        }
        XCTAssertNil(try a.userId(forAnonymousId: String(repeating: "k", count: 41)))
        try a.commitAll()
        a.close()

        let b = try IdentityStore(stateDirectory: dir)
        for id in ids() {
            XCTAssertEqual(try b.userId(forAnonymousId: id.key), id.value, id.key)
            XCTAssertEqual(try b.groupId(forUserId: id.key), id.value + "-g", id.key)
        }
        XCTAssertNil(try b.userId(forAnonymousId: "never"))
        b.close()
    }

    func testManyKeysAndEvictionsKeepTheNewestValues() throws {
        let a = try IdentityStore(stateDirectory: dir)
        a.setCacheLimit(1_000)
        for k in 0..<20_000 {
            a.learnUser(anonymousId: "anon-\(k % 7_000)", userId: "user-\(k)", sequence: UInt64(k + 1))
            if k % 3_000 == 2_999 { try a.commit(throughSequence: UInt64(k + 1 - 500)) }
        }
        for k in 13_000..<20_000 { XCTAssertEqual(try a.userId(forAnonymousId: "anon-\(k % 7_000)"), "user-\(k)") }
        XCTAssertNil(try a.userId(forAnonymousId: "anon-7000"))
        try a.commitAll()
        a.close()
        let b = try IdentityStore(stateDirectory: dir)
        for k in stride(from: 13_000, to: 20_000, by: 97) { XCTAssertEqual(try b.userId(forAnonymousId: "anon-\(k % 7_000)"), "user-\(k)") }
        b.close()
    }
}

/// The hot path (events rendered into one buffer, ids as bytes) gives exactly the events the
/// String-returning `Enricher.process` gives.
final class RenderedPathTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testDryRunWritesWhatProcessReturns() throws {
        let lines = [
            #"{"type":"identify","anonymousId":"a1","userId":"u1","timestamp":"2024-01-01T00:00:00Z"}"#,
            #"{"type":"track","event":"E","anonymousId":"a1","timestamp":"2024-01-01T00:00:01Z","context":{"locale":"x"}}"#,
            #"{"type":"group","userId":"u1","groupId":"g-\"q\"","timestamp":"2024-01-01T00:00:02Z"}"#,
            #"{"type":"page","anonymousId":"a1","timestamp":"2024-01-01T00:00:03Z","sentAt":"x","writeKey":"w"}"#,
            #"{"type":"identify","anonymousId":"a-\u00e9","userId":12345,"timestamp":"2024-01-01T00:00:04Z"}"#,
            #"{"type":"track","event":"E","anonymousId":"a-é","timestamp":"2024-01-01T00:00:05Z","context":{"app":{"v":1}}}"#,
            #"{"type":"alias","userId":"a-very-long-user-id-over-sixteen-bytes","previousId":"p","anonymousId":"long-anonymous-id-0123456789","timestamp":"2024-01-01T00:00:06Z"}"#,
            #"{"type":"screen","anonymousId":"long-anonymous-id-0123456789","timestamp":"2024-01-01T00:00:07Z","type":"screen"}"#,
            #"{"type":"track","event":"No anon","timestamp":"2024-01-01T00:00:08Z","messageId":""}"#,
            "not json",
            #"{"type":"group","anonymousId":"a1","groupId":7,"timestamp":"2024-01-01T00:00:09Z"}"#,
            #"{"type":"track","event":"E","anonymousId":"a1","timestamp":"2024-01-01T00:00:10Z"}"#,
        ]
        try writeFile(dir + "/in.ndjson", lines.joined(separator: "\n") + "\n")
        let config = try testConfig(stateDir: dir + "/state")
        let outPath = dir + "/out.ndjson"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        let fd = open(outPath, O_WRONLY)
        defer { close(fd) }
        let stats = try DryRunner.run(config: config, inputs: [InputSource(path: dir + "/in.ndjson", kind: .ndjson)], outputFD: fd, nowMillis: { 0 })
        XCTAssertEqual(stats.events, lines.count - 1)
        XCTAssertGreaterThan(stats.userIdsCarried, 0)
        XCTAssertGreaterThan(stats.groupIdsCarried, 0)
        let written = try String(contentsOfFile: outPath, encoding: .utf8).split(separator: "\n").map(String.init)

        // The same lines through the String API, from the same state (the dry run learned nothing into it).
        let identity = try IdentityStore(stateDirectory: dir + "/state")
        defer { identity.close() }
        let enricher = Enricher(config: config, identity: identity, nowMillis: { 0 })
        var expected: [String] = []
        for (i, line) in lines.enumerated() {
            if case .event(let bytes, _) = enrich(enricher, line, lineNumber: i + 1, sequence: UInt64(i + 1)) {
                expected.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        XCTAssertEqual(written, expected)
        XCTAssertTrue(written[1].contains(#""userId":"u1""#), written[1])
        XCTAssertTrue(written.last!.contains(#""userId":"u1""#) && written.last!.contains(#""groupId":"7""#), written.last!)
    }
}
