import Foundation
import JSONCore
import Testing

/// `ObjectLayout.scanDocument`: member positions, escaped keys, duplicates, nested scans.
struct ObjectLayoutTests {
    func withLayout(_ text: String, _ body: (ObjectLayout, UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBufferPointer { buffer in
            let layout = try ObjectLayout.scanDocument(buffer)
            try body(layout, buffer)
        }
    }

    func slice(_ buffer: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: buffer[r]), as: UTF8.self)
    }

    @Test func memberRangesAndKinds() throws {
        let text = #"  { "type" : "track", "n":-1.5e3,"o":{"x":[1]},"a":[ ],"t":true,"z":null }  "#
        try withLayout(text) { layout, buffer in
            #expect(slice(buffer, layout.range) == text.trimmingCharacters(in: .whitespaces))
            #expect(layout.members.map(\.kind) == [.string, .number, .object, .array, .bool, .null])
            let first = layout.members[0]
            #expect(slice(buffer, first.key) == "type")
            #expect(slice(buffer, first.value) == "\"track\"")
            #expect(slice(buffer, first.span) == #""type" : "track""#)
            #expect(layout.members.map { slice(buffer, $0.value) } == [#""track""#, "-1.5e3", #"{"x":[1]}"#, "[ ]", "true", "null"])
            #expect(layout.string("type", in: buffer) == "track")
            #expect(layout.string("n", in: buffer) == nil, "not a string")
            #expect(layout.member("missing", in: buffer) == nil)
        }
    }

    @Test func emptyObject() throws {
        try withLayout(" {\n} ") { layout, _ in
            #expect(layout.members.isEmpty)
            #expect(layout.range == 1..<4)
        }
    }

    @Test func escapedKeysMatchTheirDecodedForm() throws {
        try withLayout(#"{"us\u0065rId":"u1","k\"q":2,"\u00e9":3,"é":4,"e\u0301":5}"#) { layout, buffer in
            #expect(layout.members[0].keyHasEscapes)
            #expect(layout.keyString(layout.members[0], in: buffer) == "userId")
            #expect(layout.index(of: "userId", in: buffer) == 0)
            #expect(layout.string("userId", in: buffer) == "u1")
            #expect(layout.index(of: "k\"q", in: buffer) == 1)
            // "\u00e9" and raw "é" are the same key; the last one wins.
            #expect(layout.index(of: "é", in: buffer) == 3)
            // Keys compare by UTF-8 bytes, not canonical equivalence: "e" + combining acute is different.
            #expect(layout.index(of: "e\u{301}", in: buffer) == 4)
            #expect(!layout.members[3].keyHasEscapes)
        }
    }

    @Test func duplicatesResolveToTheLastMember() throws {
        try withLayout(#"{"a":"first","b":0,"a":"second"}"#) { layout, buffer in
            #expect(layout.members.count == 3)
            #expect(layout.index(of: "a", in: buffer) == 2)
            #expect(layout.string("a", in: buffer) == "second")
        }
    }

    @Test func stringValuesWithEscapesDecode() throws {
        try withLayout(#"{"s":"a\"b\\c\u00e9\uD83D\uDE00","plain":"中文"}"#) { layout, buffer in
            #expect(layout.string("s", in: buffer) == "a\"b\\cé😀")
            #expect(layout.string("plain", in: buffer) == "中文")
        }
    }

    @Test func scanNestedReadsAMembersObject() throws {
        try withLayout(#"{"context":{ "ip" : "1.2.3.4", "library":{"name":"x"} },"n":1}"#) { layout, buffer in
            let context = try #require(layout.member("context", in: buffer))
            let nested = try #require(ObjectLayout.scanNested(buffer, context.value))
            #expect(nested.members.count == 2)
            #expect(nested.string("ip", in: buffer) == "1.2.3.4")
            #expect(nested.range == context.value)
            let n = try #require(layout.member("n", in: buffer))
            #expect(ObjectLayout.scanNested(buffer, n.value) == nil, "not an object")
            #expect(ObjectLayout.scanNested(buffer, 0..<0) == nil)
        }
    }

    @Test func layoutAgreesWithParserOnGeneratedEvents() throws {
        var gen = JSONTextGenerator(seed: 0x5EED_0020)
        for _ in 0..<500 {
            let text = gen.eventText()
            let tree = try #require(try JSONValue(parsing: text).objectValue)
            try withLayout(text) { layout, buffer in
                #expect(layout.members.count == tree.count)
                for (m, expected) in zip(layout.members, tree.members) {
                    #expect(layout.keyString(m, in: buffer) == expected.key)
                    let value = try JSONParser.parse(UnsafeBufferPointer(rebasing: buffer[m.value]))
                    #expect(value == expected.value)
                }
            }
        }
    }
}
