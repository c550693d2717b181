import Foundation
import JSONCore
import XCTest

@testable import MetaRouter

final class EventModelTests: XCTestCase {
    func testUnknownFieldsAndExactValuesRoundTrip() throws {
        let line = #"{"type":"track","event":"Order ✓","zzz":{"b":1,"a":[1,2.50,null,true]},"big":12345678901234567890,"neg":-0.0,"properties":{"price":19.99,"qty":3,"note":null,"emoji":"😀\u00e9"},"messageId":"m1"}"#
        let event = try Event(parsing: Array(line.utf8))
        XCTAssertEqual(event.type, .track)
        XCTAssertEqual(event.event, "Order ✓")
        XCTAssertEqual(event[member: "big"], .number(JSONNumber(uncheckedText: "12345678901234567890")))
        XCTAssertEqual(event.properties?["qty"]?.encodedString, "3")
        XCTAssertEqual(event.properties?["note"], .null)
        XCTAssertEqual(event.properties?["emoji"], .string("😀é"))
        let reparsed = try Event(parsing: event.encoded)
        XCTAssertEqual(reparsed, event)
        XCTAssertEqual(event.members.keys, ["type", "event", "zzz", "big", "neg", "properties", "messageId"])
        XCTAssertEqual(event[member: "zzz"]?.encodedString, #"{"b":1,"a":[1,2.50,null,true]}"#)
        XCTAssertEqual(event[member: "neg"]?.encodedString, "-0.0")
    }

    func testTypedSettersKeepOtherMembers() throws {
        var e = try Event(parsing: Array(#"{"x":1,"type":"page","name":"Home"}"#.utf8))
        e.userId = "u1"
        e.name = nil
        XCTAssertEqual(e.json.encodedString, #"{"x":1,"type":"page","userId":"u1"}"#)
        e[member: "type"] = "screen"
        XCTAssertEqual(e.type, .screen)
    }

    func testEveryTypeAndEveryNamedField() {
        XCTAssertEqual(Set(EventType.allCases.map(\.rawValue)), ["track", "identify", "group", "screen", "page", "alias"])
        var e = Event.alias("new", previousId: "old")
        e.anonymousId = "a"
        e.groupId = "g"
        e.messageId = "1-x"
        e.timestamp = "2024-01-01T00:00:00.000Z"
        e.context = JSONObject([(key: "locale", value: "en")])
        e.integrations = JSONObject([(key: "All", value: true)])
        e.traits = JSONObject([(key: "plan", value: "pro")])
        e.properties = JSONObject()
        e.event = "ev"
        e.name = "n"
        e.sentAt = "s"
        XCTAssertEqual(
            e.members.keys,
            ["type", "userId", "previousId", "anonymousId", "groupId", "messageId", "timestamp", "context",
             "integrations", "traits", "properties", "event", "name", "sentAt"])
        XCTAssertEqual(Event.track("t").event, "t")
        XCTAssertEqual(Event.identify("u").userId, "u")
        XCTAssertEqual(Event.group("g").groupId, "g")
        XCTAssertEqual(Event.screen("s").name, "s")
        XCTAssertEqual(Event.page("p").type, .page)
    }

    func testRejectsNonEvents() {
        XCTAssertThrowsError(try Event(parsing: Array("[1]".utf8))) { XCTAssertEqual(($0 as? EventError)?.reason, "not_an_object") }
        XCTAssertThrowsError(try Event(parsing: Array(#"{"a":1}"#.utf8))) { XCTAssertEqual(($0 as? EventError)?.reason, "missing_type") }
        XCTAssertThrowsError(try Event(parsing: Array(#"{"type":"click"}"#.utf8))) { XCTAssertEqual(($0 as? EventError)?.reason, "unknown_type") }
        XCTAssertThrowsError(try Event(parsing: Array(#"{"type":"track""#.utf8))) { XCTAssertEqual(($0 as? EventError)?.reason, "invalid_json") }
        XCTAssertThrowsError(try Event(parsing: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])) {
            XCTAssertEqual(($0 as? EventError)?.reason, "invalid_utf8")
        }
    }

    func testMessageIDFormat() {
        let uuid = UUID(uuidString: "6F0C7E85-1111-4222-8333-944455556666")!
        let id = MessageID.generate(at: Date(timeIntervalSince1970: 1_734_691_572.843), uuid: uuid)
        XCTAssertEqual(id, "1734691572843-6f0c7e85-1111-4222-8333-944455556666")
        XCTAssertTrue(MessageID.isWellFormed(id))
        XCTAssertFalse(MessageID.isWellFormed("abc-6f0c7e85-1111-4222-8333-944455556666"))
        XCTAssertFalse(MessageID.isWellFormed("123-nope"))
    }

    func testTimestamps() {
        XCTAssertEqual(Timestamp.iso8601(Date(timeIntervalSince1970: 1_734_691_572.843)), "2024-12-20T10:46:12.843Z")
        XCTAssertEqual(Timestamp.epochMillis("2024-12-20T10:46:12.843Z"), 1_734_691_572_843)
        XCTAssertEqual(Timestamp.epochMillis("2024-12-20T11:46:12.843+01:00"), 1_734_691_572_843)
        XCTAssertEqual(Timestamp.epochMillis("2024-12-20T10:46:12.843456Z"), 1_734_691_572_843)
        XCTAssertEqual(Timestamp.epochMillis("2024-12-20T10:46:12Z"), 1_734_691_572_000)
        XCTAssertEqual(Timestamp.epochMillis("1970-01-01"), 0)
        XCTAssertEqual(Timestamp.epochMillis("1969-12-31T23:59:59.000Z"), -1000)
        XCTAssertNil(Timestamp.epochMillis("yesterday"))
        XCTAssertNil(Timestamp.epochMillis("2024-13-01"))
        XCTAssertNil(Timestamp.epochMillis("2024-12-20T10:46:12Zjunk"))
    }
}
