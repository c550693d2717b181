import JSONCore
import XCTest

/// Object keys are exact: canonically equivalent but different keys stay apart.
final class ObjectKeyIdentityTests: XCTestCase {
    func testCanonicallyEquivalentKeysAreDistinct() throws {
        let value = try JSONValue(parsing: "{\"\u{E9}\":1,\"e\u{301}\":2}")
        var o = try XCTUnwrap(value.objectValue)
        XCTAssertEqual(o["\u{E9}"], 1)
        XCTAssertEqual(o["e\u{301}"], 2)
        o["e\u{301}"] = nil
        XCTAssertEqual(o.count, 1)
        XCTAssertEqual(o["\u{E9}"], 1)
        XCTAssertNotEqual(JSONObject([(key: "\u{E9}", value: 1)]), JSONObject([(key: "e\u{301}", value: 1)]))
        XCTAssertEqual(JSONObject([(key: "\u{E9}", value: 1)]), JSONObject([(key: "\u{E9}", value: 1)]))
        XCTAssertNotEqual(JSONValue.string("\u{E9}"), JSONValue.string("e\u{301}"), "string values are exact too")
        XCTAssertEqual(JSONValue.string("\u{E9}"), JSONValue.string("\u{E9}"))
        XCTAssertEqual(Set([JSONValue.string("\u{E9}"), .string("e\u{301}")]).count, 2)
        // The same rule as ObjectLayout, which matches keys by bytes.
        let bytes = Array("{\"\u{E9}\":1,\"e\u{301}\":2}".utf8)
        try bytes.withUnsafeBufferPointer { buffer in
            let layout = try ObjectLayout.scanDocument(buffer)
            XCTAssertEqual(layout.index(of: "\u{E9}", in: buffer), 0)
            XCTAssertEqual(layout.index(of: "e\u{301}", in: buffer), 1)
        }
    }
}
