import JSONCore
import XCTest

@testable import MetaRouter

final class EncodedEventTests: XCTestCase {
    func testValidatingRemovesSentAtAndWriteKeyAndReadsIdentity() throws {
        let raw = #" {"messageId":"m1","sentAt":"x","userId":"u1","writeKey":"old","n":1.50} "#
        let e = try EncodedEvent(validating: Array(raw.utf8), tag: 7)
        XCTAssertEqual(String(decoding: e.bytes, as: UTF8.self), #"{"messageId":"m1","userId":"u1","n":1.50}"#)
        XCTAssertEqual(e.messageId, "m1")
        XCTAssertEqual(e.orderingKey, "u1")
        XCTAssertEqual(e.tag, 7)
    }

    func testAnonymousIdWinsOverUserIdAndUntouchedBytesAreKept() throws {
        let raw = #"{"anonymousId":"a1","userId":"u1","messageId":"m","x":"\u00e9"}"#
        let e = try EncodedEvent(validating: Array(raw.utf8))
        XCTAssertEqual(e.orderingKey, "a1")
        XCTAssertEqual(e.bytes, Array(raw.utf8))
    }

    func testGeneratesMessageIdWhenAbsent() throws {
        let e = try EncodedEvent(validating: Array(#"{"type":"track"}"#.utf8))
        let parts = e.messageId.split(separator: "-", maxSplits: 1)
        XCTAssertEqual(parts.count, 2)
        XCTAssertNotNil(Int64(parts[0]))
        XCTAssertEqual(String(parts[1]), String(parts[1]).lowercased())
        XCTAssertNotNil(UUID(uuidString: String(parts[1])))
        let obj = try JSONValue(parsing: e.bytes).objectValue
        XCTAssertEqual(obj?["messageId"]?.stringValue, e.messageId)
        XCTAssertNil(e.orderingKey)
    }

    func testRejectsInvalidJSONAndNonObjects() {
        XCTAssertThrowsError(try EncodedEvent(validating: Array(#"{"a":}"#.utf8)))
        XCTAssertThrowsError(try EncodedEvent(validating: Array("[1,2]".utf8))) { error in
            XCTAssertEqual((error as? JSONError)?.kind, .unexpectedType)
        }
    }
}
