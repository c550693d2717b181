import JSONCore
import XCTest

final class EditorMarkTests: XCTestCase {
    private func render(_ text: String, _ edit: (inout ObjectEditor, UnsafeBufferPointer<UInt8>) -> Void) throws -> (String, [RenderedMark]) {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { b in
            var editor = ObjectEditor(try ObjectLayout.scanDocument(b))
            edit(&editor, b)
            var out: [UInt8] = []
            var marks: [RenderedMark] = []
            editor.render(b, into: &out, marks: &marks)
            return (String(decoding: out, as: UTF8.self), marks)
        }
    }

    private func splice(_ text: String, _ mark: RenderedMark, _ key: String, _ value: String) -> String {
        var bytes = Array(text.utf8)
        let followed = mark.range.upperBound < bytes.count && bytes[mark.range.upperBound] != UInt8(ascii: "}")
        bytes.replaceSubrange(mark.range, with: mark.replacement(key: key, value: Array(value.utf8), followedByMember: followed))
        return String(decoding: bytes, as: UTF8.self)
    }

    func testMarkedMemberValueIsReported() throws {
        let (out, marks) = try render("{\"a\":1, \"u\" : null,\"b\":2}") { e, b in
            _ = e.mark(at: 1)
            e.set("c", raw: Array("3".utf8), in: b)
        }
        XCTAssertEqual(out, "{\"a\":1,\"u\" : null,\"b\":2,\"c\":3}")
        XCTAssertEqual(marks.count, 1)
        XCTAssertFalse(marks[0].isInsertion)
        XCTAssertEqual(splice(out, marks[0], "u", "\"x\""), "{\"a\":1,\"u\" : \"x\",\"b\":2,\"c\":3}")
    }

    func testAppendMarksKeepAppendOrder() throws {
        let (out, marks) = try render("{\"a\":1}") { e, b in
            e.set("b", raw: Array("2".utf8), in: b)
            _ = e.appendMark()
            _ = e.appendMark()
            e.set("c", raw: Array("3".utf8), in: b)
        }
        XCTAssertEqual(out, "{\"a\":1,\"b\":2,\"c\":3}")
        XCTAssertEqual(marks[0].range, marks[1].range)
        // Later marks first, so the members keep their order.
        let both = splice(splice(out, marks[1], "y", "\"Y\""), marks[0], "x", "\"X\"")
        XCTAssertEqual(both, "{\"a\":1,\"b\":2,\"x\":\"X\",\"y\":\"Y\",\"c\":3}")
    }

    func testInsertionAsFirstMember() throws {
        let (empty, m1) = try render("{}") { e, _ in _ = e.appendMark() }
        XCTAssertEqual(splice(empty, m1[0], "k", "1"), "{\"k\":1}")
        let (one, m2) = try render("{\"a\":1}") { e, b in
            e.remove("a", in: b)
            _ = e.appendMark()
            e.set("b", raw: Array("2".utf8), in: b)
        }
        XCTAssertEqual(one, "{\"b\":2}")
        XCTAssertTrue(m2[0].isFirst)
        XCTAssertEqual(splice(one, m2[0], "k", "1"), "{\"k\":1,\"b\":2}")
    }
}
