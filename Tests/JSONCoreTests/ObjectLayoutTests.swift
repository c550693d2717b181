import Foundation
import JSONCore
import XCTest

/// `ObjectLayout.scanDocument`: member positions, escaped keys, duplicates, nested scans.
final class ObjectLayoutTests: XCTestCase {
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

    func testMemberRangesAndKinds() throws {
        let text = #"  { "type" : "track", "n":-1.5e3,"o":{"x":[1]},"a":[ ],"t":true,"z":null }  "#
        try withLayout(text) { layout, buffer in
            XCTAssertEqual(slice(buffer, layout.range), text.trimmingCharacters(in: .whitespaces))
            XCTAssertEqual(layout.members.map(\.kind), [.string, .number, .object, .array, .bool, .null])
            let first = layout.members[0]
            XCTAssertEqual(slice(buffer, first.key), "type")
            XCTAssertEqual(slice(buffer, first.value), "\"track\"")
            XCTAssertEqual(slice(buffer, first.span), #""type" : "track""#)
            XCTAssertEqual(layout.members.map { slice(buffer, $0.value) }, [#""track""#, "-1.5e3", #"{"x":[1]}"#, "[ ]", "true", "null"])
            XCTAssertEqual(layout.string("type", in: buffer), "track")
            XCTAssertNil(layout.string("n", in: buffer), "not a string")
            XCTAssertNil(layout.member("missing", in: buffer))
        }
    }

    func testEmptyObject() throws {
        try withLayout(" {\n} ") { layout, _ in
            XCTAssertTrue(layout.members.isEmpty)
            XCTAssertEqual(layout.range, 1..<4)
        }
    }

    func testEscapedKeysMatchTheirDecodedForm() throws {
        try withLayout(#"{"us\u0065rId":"u1","k\"q":2,"\u00e9":3,"é":4,"e\u0301":5}"#) { layout, buffer in
            XCTAssertTrue(layout.members[0].keyHasEscapes)
            XCTAssertEqual(layout.keyString(layout.members[0], in: buffer), "userId")
            XCTAssertEqual(layout.index(of: "userId", in: buffer), 0)
            XCTAssertEqual(layout.string("userId", in: buffer), "u1")
            XCTAssertEqual(layout.index(of: "k\"q", in: buffer), 1)
            // "\u00e9" and raw "é" are the same key; the last one wins.
            XCTAssertEqual(layout.index(of: "é", in: buffer), 3)
            // Keys compare by UTF-8 bytes, not canonical equivalence: "e" + combining acute is different.
            XCTAssertEqual(layout.index(of: "e\u{301}", in: buffer), 4)
            XCTAssertFalse(layout.members[3].keyHasEscapes)
        }
    }

    func testDuplicatesResolveToTheLastMember() throws {
        try withLayout(#"{"a":"first","b":0,"a":"second"}"#) { layout, buffer in
            XCTAssertEqual(layout.members.count, 3)
            XCTAssertEqual(layout.index(of: "a", in: buffer), 2)
            XCTAssertEqual(layout.string("a", in: buffer), "second")
        }
    }

    func testStringValuesWithEscapesDecode() throws {
        try withLayout(#"{"s":"a\"b\\c\u00e9\uD83D\uDE00","plain":"中文"}"#) { layout, buffer in
            XCTAssertEqual(layout.string("s", in: buffer), "a\"b\\cé😀")
            XCTAssertEqual(layout.string("plain", in: buffer), "中文")
        }
    }

    func testScanNestedReadsAMembersObject() throws {
        try withLayout(#"{"context":{ "ip" : "1.2.3.4", "library":{"name":"x"} },"n":1}"#) { layout, buffer in
            let context = try XCTUnwrap(layout.member("context", in: buffer))
            let nested = try XCTUnwrap(ObjectLayout.scanNested(buffer, context.value))
            XCTAssertEqual(nested.members.count, 2)
            XCTAssertEqual(nested.string("ip", in: buffer), "1.2.3.4")
            XCTAssertEqual(nested.range, context.value)
            let n = try XCTUnwrap(layout.member("n", in: buffer))
            XCTAssertNil(ObjectLayout.scanNested(buffer, n.value), "not an object")
            XCTAssertNil(ObjectLayout.scanNested(buffer, 0..<0))
        }
    }

    func testLayoutAgreesWithParserOnGeneratedEvents() throws {
        var gen = JSONTextGenerator(seed: 0x5EED_0020)
        for _ in 0..<500 {
            let text = gen.eventText()
            let tree = try XCTUnwrap(try JSONValue(parsing: text).objectValue)
            try withLayout(text) { layout, buffer in
                XCTAssertEqual(layout.members.count, tree.count)
                for (m, expected) in zip(layout.members, tree.members) {
                    XCTAssertEqual(layout.keyString(m, in: buffer), expected.key)
                    let value = try JSONParser.parse(UnsafeBufferPointer(rebasing: buffer[m.value]))
                    XCTAssertEqual(value, expected.value)
                }
            }
        }
    }
}
