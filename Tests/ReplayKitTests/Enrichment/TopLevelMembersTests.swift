import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import ReplayKit
import Testing

/// The single-pass lookups of the enrichment hot path agree with the general layout API,
/// including duplicate and escaped keys.
struct TopLevelMembersTests {
    private func top(_ text: String) throws -> (TopLevelMembers, ObjectLayout, [UInt8]) {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buf in
            let layout = try ObjectLayout.scanDocument(buf)
            return (TopLevelMembers(layout, buf), layout, bytes)
        }
    }

    @Test func findsLastOfEachKnownKeyLikeMemberLookup() throws {
        let text = #"{"type":"track","userId":"u1","x":1,"userId":"u2","context":{},"\u0074raits":{"a":1},"messageId":"m"}"#
        let (t, layout, bytes) = try top(text)
        bytes.withUnsafeBufferPointer { buf in
            #expect(t.type == layout.index(of: "type", in: buf))
            #expect(t.userId == 3)
            #expect(t.userId == layout.index(of: "userId", in: buf))
            #expect(t.traits == layout.index(of: "traits", in: buf))
            #expect(t.traits == 5)
            #expect(t.messageId == 6)
            #expect(t.context == 4)
            #expect(t.anonymousId == nil)
            #expect(t.timestamp == nil)
        }
        #expect(t.hasDuplicates)
        let (single, _, _) = try top(#"{"type":"page","anonymousId":"a","timestamp":"t","sentAt":"s"}"#)
        #expect(!single.hasDuplicates)
        #expect(single.sentAt == 3)
    }

    @Test(
        arguments: [
            (#""track""#, EventType.track), (#""identify""#, .identify), (#""alias""#, .alias), (#""page""#, .page),
            (#""screen""#, .screen), (#""group""#, .group), (#""tr\u0061ck""#, .track), (#""Track""#, nil), (#""tracks""#, nil),
            (#""""#, nil), (#""\"track""#, nil),
        ] as [(String, EventType?)])
    func eventTypeReadsRawAndEscapedSpellings(json: String, expected: EventType?) {
        let bytes = Array(json.utf8)
        #expect(bytes.withUnsafeBufferPointer { EventType(jsonString: $0, 0..<$0.count) } == expected, "\(json)")
    }

    /// Every member ``TopLevelEdits`` may set is found under its key.
    @Test(arguments: TopLevelEdits.Member.allCases)
    func findsEveryEditableMember(member: TopLevelEdits.Member) throws {
        let (t, _, _) = try top(#"{"x":0,"\#(member.rawValue)":1}"#)
        #expect(t[member] == 1)
        for other in TopLevelEdits.Member.allCases where other != member { #expect(t[other] == nil) }
    }

    /// Every key the rules read is found, alone and among the others, and so is nothing else:
    /// not a key one byte off at any position (the same length, so the same bucket's words are
    /// compared), one byte longer or shorter, or in another case.
    @Test func knownKeysFindTheirNamesAndNothingElse() throws {
        for (key, name) in KnownKeys.names {
            #expect(Self.find(name) == key.rawValue, "\(name)")
            var near = [name + "x", String(name.dropLast()), name.uppercased(), "x" + name]
            let bytes = Array(name.utf8)
            for i in bytes.indices {
                for delta: UInt8 in [1, 0x20, 0x80] {
                    var changed = bytes
                    changed[i] ^= delta
                    near.append(String(decoding: changed, as: UTF8.self))
                }
            }
            for other in near where !KnownKeys.names.contains(where: { $0.1 == other }) {
                #expect(Self.find(other) == nil, "\(other) is not \(name)")
            }
        }
        let all = KnownKeys.names.map { #""\#($0.1)":0"# }.joined(separator: ",")
        let (t, _, _) = try top("{\(all)}")
        for (position, (key, _)) in KnownKeys.names.enumerated() { #expect(t.index(key) == position) }
        #expect(!t.hasDuplicates)
        #expect(t.isCompact)
    }

    private static func find(_ name: String) -> Int? {
        let bytes = Array(name.utf8)
        return bytes.withUnsafeBufferPointer { buf in
            KnownKeys.find(buf, 0..<buf.count, KnownKeys.table)
        }
    }
}
