import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import Testing

@Suite struct EncodedEventTests {
    @Test func validatingRemovesSentAtAndWriteKeyAndReadsIdentity() throws {
        let raw = #" {"messageId":"m1","sentAt":"x","userId":"u1","writeKey":"old","n":1.50} "#
        let e = try EncodedEvent(validating: Array(raw.utf8), tag: 7)
        #expect(String(decoding: e.bytes, as: UTF8.self) == #"{"messageId":"m1","userId":"u1","n":1.50}"#)
        #expect(e.messageId == "m1")
        #expect(e.orderingKey == "u1")
        #expect(e.tag == 7)
    }

    @Test func anonymousIdWinsOverUserIdAndUntouchedBytesAreKept() throws {
        let raw = #"{"anonymousId":"a1","userId":"u1","messageId":"m","x":"\u00e9"}"#
        let e = try EncodedEvent(validating: Array(raw.utf8))
        #expect(e.orderingKey == "a1")
        #expect(e.bytes == Array(raw.utf8))
    }

    @Test func generatesMessageIdWhenAbsent() throws {
        let e = try EncodedEvent(validating: Array(#"{"type":"track"}"#.utf8))
        let parts = e.messageId.split(separator: "-", maxSplits: 1)
        #expect(parts.count == 2)
        #expect(Int64(parts[0]) != nil)
        #expect(String(parts[1]) == String(parts[1]).lowercased())
        #expect(UUID(uuidString: String(parts[1])) != nil)
        let obj = try JSONValue(parsing: e.bytes).objectValue
        #expect(obj?["messageId"]?.stringValue == e.messageId)
        #expect(e.orderingKey == nil)
    }

    @Test func rejectsInvalidJSONAndNonObjects() {
        #expect(throws: JSONError.self) { try EncodedEvent(validating: Array(#"{"a":}"#.utf8)) }
        let error = #expect(throws: JSONError.self) { try EncodedEvent(validating: Array("[1,2]".utf8)) }
        #expect(error?.kind == .unexpectedType)
    }
}
