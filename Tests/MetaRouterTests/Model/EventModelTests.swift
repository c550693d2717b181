import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import Testing
import Timestamps

@Suite struct EventModelTests {
    @Test func unknownFieldsAndExactValuesRoundTrip() throws {
        let line =
            #"{"type":"track","event":"Order ✓","zzz":{"b":1,"a":[1,2.50,null,true]},"big":12345678901234567890,"neg":-0.0,"properties":{"price":19.99,"qty":3,"note":null,"emoji":"😀\u00e9"},"messageId":"m1"}"#
        let event = try Event(parsing: Array(line.utf8))
        #expect(event.type == .track)
        #expect(event.event == "Order ✓")
        #expect(event[member: "big"] == .number(JSONNumber(uncheckedText: "12345678901234567890")))
        #expect(event.properties?["qty"]?.encodedString == "3")
        #expect(event.properties?["note"] == .null)
        #expect(event.properties?["emoji"] == .string("😀é"))
        let reparsed = try Event(parsing: event.encoded)
        #expect(reparsed == event)
        #expect(event.members.keys == ["type", "event", "zzz", "big", "neg", "properties", "messageId"])
        #expect(event[member: "zzz"]?.encodedString == #"{"b":1,"a":[1,2.50,null,true]}"#)
        #expect(event[member: "neg"]?.encodedString == "-0.0")
    }

    @Test func typedSettersKeepOtherMembers() throws {
        var e = try Event(parsing: Array(#"{"x":1,"type":"page","name":"Home"}"#.utf8))
        e.userId = "u1"
        e.name = nil
        #expect(e.json.encodedString == #"{"x":1,"type":"page","userId":"u1"}"#)
        e[member: "type"] = "screen"
        #expect(e.type == .screen)
    }

    @Test func everyTypeAndEveryNamedField() {
        #expect(Set(EventType.allCases.map(\.rawValue)) == ["track", "identify", "group", "screen", "page", "alias"])
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
        #expect(
            e.members.keys == [
                "type", "userId", "previousId", "anonymousId", "groupId", "messageId", "timestamp", "context",
                "integrations", "traits", "properties", "event", "name", "sentAt",
            ])
        #expect(Event.track("t").event == "t")
        #expect(Event.identify("u").userId == "u")
        #expect(Event.group("g").groupId == "g")
        #expect(Event.screen("s").name == "s")
        #expect(Event.page("p").type == .page)
    }

    @Test(
        arguments: [
            (Array("[1]".utf8), "not_an_object"),
            (Array(#"{"a":1}"#.utf8), "missing_type"),
            (Array(#"{"type":"click"}"#.utf8), "unknown_type"),
            (Array(#"{"type":"track""#.utf8), "invalid_json"),
            ([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], "invalid_utf8"),
        ] as [([UInt8], String)])
    func rejectsNonEvents(bytes: [UInt8], reason: String) {
        let error = #expect(throws: EventError.self) { try Event(parsing: bytes) }
        #expect(error?.reason == reason)
    }

    @Test func messageIDFormat() {
        let uuid = UUID(uuidString: "6F0C7E85-1111-4222-8333-944455556666")!
        let id = MessageID.generate(at: Date(timeIntervalSince1970: 1_734_691_572.843), uuid: uuid)
        #expect(id == "1734691572843-6f0c7e85-1111-4222-8333-944455556666")
        #expect(MessageID.isWellFormed(id))
        #expect(!(MessageID.isWellFormed("abc-6f0c7e85-1111-4222-8333-944455556666")))
        #expect(!(MessageID.isWellFormed("123-nope")))
    }

    @Test func timestamps() {
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 1_734_691_572.843)) == "2024-12-20T10:46:12.843Z")
        #expect(Timestamp.epochMillis("2024-12-20T10:46:12.843Z") == 1_734_691_572_843)
        #expect(Timestamp.epochMillis("2024-12-20T11:46:12.843+01:00") == 1_734_691_572_843)
        #expect(Timestamp.epochMillis("2024-12-20T10:46:12.843456Z") == 1_734_691_572_843)
        #expect(Timestamp.epochMillis("2024-12-20T10:46:12Z") == 1_734_691_572_000)
        #expect(Timestamp.epochMillis("1970-01-01") == 0)
        #expect(Timestamp.epochMillis("1969-12-31T23:59:59.000Z") == -1000)
        #expect(Timestamp.epochMillis("yesterday") == nil)
        #expect(Timestamp.epochMillis("2024-13-01") == nil)
        #expect(Timestamp.epochMillis("2024-12-20T10:46:12Zjunk") == nil)
    }
}
