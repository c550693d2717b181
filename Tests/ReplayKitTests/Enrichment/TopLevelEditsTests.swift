import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import TestSupport
import Testing

@testable import ReplayKit

/// The edits of an event's top-level members render the same bytes on the direct path and
/// through the general `ObjectEditor`.
struct TopLevelEditsTests {
    @Test func duplicateContextIsCollapsedIntoOneEnrichedContext() throws {
        let id = try IdentityStore(stateDirectory: nil)
        let e = Enricher(config: try testConfig(), identity: id)
        let line = #"{"type":"page","anonymousId":"a","timestamp":"2024-01-01T00:00:00Z","context":{"x":1},"context":{"locale":"de-CH"}}"#
        guard case .event(let event) = enrich(e, line), case let bytes = event.bytes else {
            Issue.record("not an event")
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.components(separatedBy: "\"context\"").count == 2, "\(text)")
        #expect(text.contains(#""locale":"de-CH""#), "\(text)")
        #expect(!(text.contains(#""x":1"#)), "\(text)")
    }

    /// Where the generated objects of ``directRenderMatchesTheEditor(_:)`` have whitespace.
    enum Spacing: CaseIterable {
        /// Around a quarter of the members have it before and after their key and value.
        case someMembers
        /// None: every object is compact (``TopLevelMembers/isCompact``).
        case none
        /// Only around the `:` inside a member: still compact.
        case insideMembers
    }

    /// For objects without duplicate keys, the direct renderer gives exactly the bytes the
    /// general `ObjectEditor` gives for the same edits: on generated objects (members present or
    /// missing, in any order, with whitespace and escaped keys) and every subset of edits.
    /// Compact objects take their own path, which the last two spacings hold to the same bytes.
    @Test(arguments: Spacing.allCases)
    func directRenderMatchesTheEditor(_ spacing: Spacing) throws {
        var rng = SeededRandom(seed: 20_261_122)
        let names = [
            "type", "timestamp", "sentAt", "writeKey", "anonymousId", "userId", "groupId", "messageId",
            "properties", "traits", "context", "event", "extra",
        ]
        let values = [#""s""#, "1", "null", #"{"k":[1,{"z":"é"}]}"#, "[]", #""""#, "true"]
        var checked = 0
        var spacedChecked = 0
        for _ in 0..<3_000 {
            var members: [String] = []
            for name in names.shuffled(using: &rng) where rng.next() % 3 != 0 {
                // Sometimes an escaped spelling of the key (`"\u0074ype"` for `"type"`).
                let key = rng.next() % 7 == 0 ? "\\u00" + String(name.unicodeScalars.first!.value, radix: 16) + name.dropFirst() : name
                let ws = spacing != .none && rng.next() % 4 == 0 ? " " : ""
                let outer = spacing == .someMembers ? ws : ""
                members.append("\(outer)\"\(key)\"\(ws):\(ws)\(values[Int(rng.next() % UInt64(values.count))])\(outer)")
            }
            let line = Array(("{" + members.joined(separator: ",") + "}").utf8)
            var edits = TopLevelEdits()
            func maybe(_ v: String) -> MemberValue? { rng.next() % 2 == 0 ? .bytes(Array(v.utf8)) : nil }
            edits[.timestamp] = maybe(#""2024-01-01T00:00:00Z""#)
            edits.removeSentAt = rng.next() % 2 == 0
            edits.removeWriteKey = rng.next() % 2 == 0
            edits[.anonymousId] = maybe(#""anon""#)
            edits[.userId] = rng.next() % 3 == 0 ? .identity(IdentityValue(raw: Array("u\"1".utf8))) : maybe(#""u""#)
            edits[.groupId] = rng.next() % 3 == 0 ? .identity(IdentityValue(raw: Array("group-id-longer-than-16".utf8))) : maybe(#""g""#)
            edits[.messageId] = rng.next() % 3 == 0 ? .messageId(MessageID.Parts(millis: 7, a: 1, b: 2)) : maybe(#""m-1""#)
            edits[.properties] = maybe("{}")
            edits[.traits] = maybe(#"{"a":1}"#)
            edits[.context] = maybe(#"{"library":{"name":"mr-replay"}}"#)
            try line.withUnsafeBufferPointer { buf in
                let layout = try ObjectLayout.scanDocument(buf)
                let top = TopLevelMembers(layout, buf)
                #expect(!top.hasDuplicates)
                // No key or value has a space: a space is whitespace, between members only with
                // `someMembers`.
                let spaced = spacing == .someMembers && line.contains(UInt8(ascii: " "))
                #expect(top.isCompact == !spaced)
                if spaced { spacedChecked += 1 }
                var direct: [UInt8] = []
                edits.render(layout, top, buf, into: &direct)
                var editor = ObjectEditor(layout)
                edits.apply(to: &editor, buf)
                let general = editor.rendered(buf)
                #expect(String(decoding: direct, as: UTF8.self) == String(decoding: general, as: UTF8.self))
                #expect((try? direct.withUnsafeBufferPointer { try JSONScanner.validate($0) }) == .object)
                checked += 1
            }
        }
        #expect(checked == 3_000)
        // With whitespace between members, most objects are not compact (the general path).
        if spacing == .someMembers { #expect(spacedChecked > 1_000) }
    }

    @Test func renderedCapacityCoversTheOutput() throws {
        let text = #"{"a":1,"b":"xx","c":[1,2]}"#
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBufferPointer { buf in
            var editor = ObjectEditor(try ObjectLayout.scanDocument(buf))
            editor.replace(at: 1, raw: Array(#""a much longer value than before""#.utf8))
            editor.set("new", raw: Array("true".utf8), in: buf)
            let out = editor.rendered(buf)
            #expect(String(decoding: out, as: UTF8.self) == #"{"a":1,"b":"a much longer value than before","c":[1,2],"new":true}"#)
            #expect(editor.renderedCapacity >= out.count)
        }
    }

    /// Missing members are appended after the line's own, in the order of `Member`.
    @Test func missingMembersAreAppendedInMemberOrder() throws {
        var edits = TopLevelEdits()
        for member in TopLevelEdits.Member.allCases.reversed() { edits[member] = .bytes(Array(#""\#(member.rawValue)""#.utf8)) }
        let line = Array(#"{"type":"page","userId":"own"}"#.utf8)
        try line.withUnsafeBufferPointer { buf in
            let layout = try ObjectLayout.scanDocument(buf)
            var out: [UInt8] = []
            edits.render(layout, TopLevelMembers(layout, buf), buf, into: &out)
            let expected =
                #"{"type":"page","userId":"userId","timestamp":"timestamp","anonymousId":"anonymousId","groupId":"groupId","#
                + #""messageId":"messageId","properties":"properties","traits":"traits","context":"context"}"#
            #expect(String(decoding: out, as: UTF8.self) == expected)
        }
    }
}

/// `TopLevelEdits.Member.at(_:)` walks the members in the order of `allCases`.
@Test func memberPositionsFollowTheCaseOrder() {
    typealias Member = TopLevelEdits.Member
    #expect(Member.count == Member.allCases.count)
    #expect((0..<Member.count).map(Member.at) == Array(Member.allCases))
}

/// Each member's key literal is its name as a JSON string and a colon.
@Test func memberKeyLiteralsAreTheNamesEncoded() {
    for member in TopLevelEdits.Member.allCases {
        let key = member.encodedKey
        let written = String(decoding: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount), as: UTF8.self)
        #expect(written == "\"\(member.rawValue)\":")
    }
}

/// The library is appended to a context as its text (compact) or member by member (spaced), with
/// the same bytes either way as the general editor would write.
@Test(arguments: [
    (#"{}"#, true), (#"{"a":1}"#, true), (#"{"a":1,"b":{"c":[2, 3]}}"#, true), (#"{ }"#, false), (#"{"a":1 }"#, false),
    (#"{ "a":1}"#, false), (#"{"a":1, "b":2}"#, false), (#"{"a":1 ,"b":2}"#, false),
])
func libraryIsAppendedToCompactAndSpacedContexts(text: String, compact: Bool) throws {
    let bytes = Array(text.utf8)
    try bytes.withUnsafeBufferPointer { buf in
        let layout = try ObjectLayout.scanDocument(buf)
        let value = MemberValue.appendingLibrary(to: layout)
        if case .contextWithLibrary = value { #expect(compact, "\(text)") } else { #expect(!compact, "\(text)") }
        var editor = ObjectEditor(layout)
        editor.set("library", raw: LibraryMember.json, in: buf)
        var expected: [UInt8] = []
        editor.render(buf, into: &expected)
        #expect(String(decoding: value.bytes(buf), as: UTF8.self) == String(decoding: expected, as: UTF8.self), "\(text)")
        #expect(value.bytes(buf).count <= value.maximumCount)
    }
}
