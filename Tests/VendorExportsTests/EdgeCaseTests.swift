import JSONCore
import Testing
import VendorExports

/// Details of the byte-level conversion: escapes, Unicode, 64-bit numbers, and how events are
/// appended to the caller's buffer.
@Suite("Conversion details")
struct EdgeCaseTests {
    /// The only event `record` becomes, parsed.
    static func event(_ format: ExportFormat, _ record: String) throws -> JSONObject {
        let events = try Convert.events(format, record).get()
        try #require(events.count == 1, "\(events)")
        return try #require(try JSONValue(parsing: events[0]).objectValue)
    }

    @Test("escaped strings and keys are read decoded and copied as written")
    func escapes() throws {
        let record =
            #"{"event":"Tab \"Home\" \u00e9","properties":{"time":1740823198,"distinct_id":"$device:ab\\cd","\u0024os":"Linux","note":"line\nbreak"}}"#
        let event = try Self.event(.mixpanel, record)
        #expect(event["event"] == .string("Tab \"Home\" é"), "\(event)")
        #expect(event["anonymousId"] == .string("ab\\cd"), "\(event)")
        #expect(event["context"]?.objectValue?["os"]?.objectValue?["name"] == .string("Linux"), "\(event)")
        #expect(event["properties"]?.objectValue?["note"] == .string("line\nbreak"), "\(event)")
        let text = try Convert.events(.mixpanel, record).get()[0]
        #expect(text.contains(#""event":"Tab \"Home\" \u00e9""#), "the name's bytes are copied, escapes and all: \(text)")
    }

    @Test("non-ASCII text passes through unchanged")
    func unicode() throws {
        let record =
            #"{"uuid":"u-1","event":"Zahlung erhalten 💶","distinct_id":"jürgen","timestamp":"2025-03-01T09:59:58Z","properties":{"$geoip_city_name":"Zürich","betrag":12.5}}"#
        let event = try Self.event(.posthog, record)
        #expect(event["event"] == .string("Zahlung erhalten 💶"))
        #expect(event["userId"] == .string("jürgen"))
        #expect(event["context"]?.objectValue?["location"]?.objectValue?["city"] == .string("Zürich"))
    }

    @Test(
        "64-bit ids stay exact: numbers become strings with the same digits",
        arguments: [
            "7346244611012968789", "-9223372036854775808", "18446744073709551615", "12",
        ])
    func exactIds(_ digits: String) throws {
        let record =
            #"{"events":[{"event_type":"custom_event","data":{"event_name":"A","timestamp_unixtime_ms":1740823198123}}],"mpid":"# + digits + "}"
        let event = try Self.event(.mparticle, record)
        #expect(event["anonymousId"] == .string(digits), "\(event)")
        let ids = event["context"]?.objectValue?["externalIds"]?.arrayValue?.first?.objectValue
        #expect(ids?["id"] == .string(digits), "\(event)")
    }

    @Test("events are appended after what the buffer holds, each range exactly one object")
    func appends() throws {
        var recipe = ExportRecipe(.rudderstack)
        var out = Array("existing\n".utf8)
        var ranges: [Range<Int>] = [0..<8]
        let record = Array(Fixtures.records(.rudderstack)[0].utf8)
        try record.withUnsafeBufferPointer { buffer throws(RecipeFailure) in
            try recipe.convert(buffer, into: &out, events: &ranges)
        }
        #expect(ranges.count == 4, "\(ranges)")
        #expect(ranges.first == 0..<8)
        #expect(ranges[1].lowerBound == 9, "\(ranges)")
        for (a, b) in zip(ranges.dropFirst(), ranges.dropFirst(2)) { #expect(a.upperBound == b.lowerBound, "\(ranges)") }
        #expect(ranges.last?.upperBound == out.count)
        for r in ranges.dropFirst() {
            let value = try JSONValue(parsing: Array(out[r]))
            #expect(value.objectValue?["type"] != nil, "\(String(decoding: out[r], as: UTF8.self))")
        }
    }

    @Test(
        "Mixpanel times: seconds, fractional seconds and time_in_ms milliseconds",
        arguments: [
            ("1740823198", "2025-03-01T09:59:58.000Z"), ("1740823198.5", "2025-03-01T09:59:58.500Z"),
            ("1740823198123", "2025-03-01T09:59:58.123Z"), ("0", "1970-01-01T00:00:00.000Z"), ("-1.5", "1969-12-31T23:59:58.500Z"),
        ])
    func mixpanelTimes(_ time: String, _ expected: String) throws {
        let event = try Self.event(.mixpanel, #"{"event":"A","properties":{"distinct_id":"u","time":"# + time + "}}")
        #expect(event["timestamp"] == .string(expected), "\(time): \(event["timestamp"]?.encodedString ?? "none")")
    }

    @Test(
        "GA4 event_timestamp microseconds, as a string or a number, truncate to milliseconds",
        arguments: [
            (#""1740823198123999""#, "2025-03-01T09:59:58.123Z"), ("1740823198123456", "2025-03-01T09:59:58.123Z"),
            (#""-1""#, "1969-12-31T23:59:59.999Z"),
        ])
    func ga4Times(_ micros: String, _ expected: String) throws {
        let event = try Self.event(.ga4, #"{"event_name":"a","event_timestamp":"# + micros + #","user_pseudo_id":"p"}"#)
        #expect(event["timestamp"] == .string(expected), "\(micros): \(event["timestamp"]?.encodedString ?? "none")")
    }

    @Test(
        "GA4 int_value strings become numbers only when JSON can write them so and a double holds them exactly",
        arguments: [
            (#""42""#, "42"), (#""-7""#, "-7"), (#""0""#, "0"), (#""0870411595""#, #""0870411595""#),
            (#""-01""#, #""-01""#), (#""1234567890123456""#, #""1234567890123456""#), (#""12a""#, #""12a""#),
        ])
    func ga4Integers(_ written: String, _ expected: String) throws {
        let record =
            #"{"event_name":"a","event_timestamp":"1740823198123456","user_pseudo_id":"p","event_params":[{"key":"n","value":{"string_value":null,"int_value":"#
            + written + "}}]}"
        let event = try Self.event(.ga4, record)
        #expect(event["properties"]?.objectValue?["n"]?.encodedString == expected, "\(event)")
    }

    @Test("Amplitude session markers become no event, and the recipe writes nothing for them", arguments: ["session_start", "session_end"])
    func sessionMarkers(_ type: String) throws {
        let record = #"{"event_type":""# + type + #"","user_id":"u1","event_time":"2025-03-01 09:59:58.123000","session_id":1740823190000}"#
        #expect(try Convert.events(.amplitude, record).get().isEmpty)
    }
}
