import JSONCore
import XCTest

/// Scanning and editing into reused storage gives the same results as fresh values.
final class ScratchReuseTests: XCTestCase {
    func testScanDocumentReusingMatchesAFreshScanLineAfterLine() throws {
        let lines = [
            #"{"a":1,"b":{"c":[1,2]},"d":"é"}"#,
            #" { "x" : true } "#,
            "{}",
            #"{"k":"v","k":"w","\u006b":null}"#,
        ]
        var scratch = ObjectLayout()
        for text in lines {
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { buf in
                let fresh = try ObjectLayout.scanDocument(buf)
                try ObjectLayout.scanDocument(buf, reusing: &scratch)
                XCTAssertEqual(scratch.members, fresh.members, text)
                XCTAssertEqual(scratch.range, fresh.range, text)
            }
        }
    }

    func testScanDocumentReusingLeavesNoMembersOnError() throws {
        var scratch = ObjectLayout()
        let good = Array(#"{"a":1,"b":2}"#.utf8)
        try good.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0, reusing: &scratch) }
        XCTAssertEqual(scratch.members.count, 2)
        for bad in [#"{"a":1,"b":}"#, "[1]", #"{"a":1} x"#] {
            let bytes = Array(bad.utf8)
            XCTAssertThrowsError(try bytes.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0, reusing: &scratch) }, bad)
            XCTAssertTrue(scratch.members.isEmpty, bad)
        }
    }

    func testScanNestedReusingMatchesScanNested() throws {
        let bytes = Array(#"{"ctx":{"a":1,"b":[{}]},"n":5}"#.utf8)
        try bytes.withUnsafeBufferPointer { buf in
            let top = try ObjectLayout.scanDocument(buf)
            var scratch = ObjectLayout()
            XCTAssertTrue(ObjectLayout.scanNested(buf, top.members[0].value, reusing: &scratch))
            let fresh = try XCTUnwrap(ObjectLayout.scanNested(buf, top.members[0].value))
            XCTAssertEqual(scratch.members, fresh.members)
            XCTAssertEqual(scratch.range, fresh.range)
            XCTAssertFalse(ObjectLayout.scanNested(buf, top.members[1].value, reusing: &scratch))
            XCTAssertTrue(scratch.members.isEmpty)
        }
    }

    func testResetEditorForgetsEarlierEdits() throws {
        let first = Array(#"{"a":1,"b":2}"#.utf8)
        let second = Array(#"{"c":3}"#.utf8)
        var editor = ObjectEditor(ObjectLayout())
        try first.withUnsafeBufferPointer { buf in
            editor.reset(try ObjectLayout.scanDocument(buf))
            editor.remove("a", in: buf)
            editor.set("z", raw: Array("9".utf8), in: buf)
            XCTAssertEqual(String(decoding: editor.rendered(buf), as: UTF8.self), #"{"b":2,"z":9}"#)
        }
        try second.withUnsafeBufferPointer { buf in
            editor.reset(try ObjectLayout.scanDocument(buf))
            XCTAssertFalse(editor.hasEdits)
            XCTAssertEqual(String(decoding: editor.rendered(buf), as: UTF8.self), #"{"c":3}"#)
            editor.replace(at: 0, raw: Array("4".utf8))
            XCTAssertEqual(String(decoding: editor.rendered(buf), as: UTF8.self), #"{"c":4}"#)
        }
    }
}
