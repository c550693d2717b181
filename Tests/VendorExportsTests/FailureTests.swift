import Testing
import VendorExports

/// Records that cannot be mapped fail with a stable reason and a detail naming the recipe and
/// the field, and leave the caller's output as it was.
@Suite("Records that cannot be mapped")
struct FailureTests {
    struct Bad: Sendable, CustomTestStringConvertible {
        let format: ExportFormat
        let record: String
        let reason: String
        let detail: String
        var testDescription: String { detail }
    }

    static let bad: [Bad] = [
        Bad(
            format: .amplitude, record: #"{"event_time":"2025-03-01 09:59:58.123000","user_id":"u1","event_type":null}"#,
            reason: "missing_field", detail: "amplitude: event_type is missing"),
        Bad(
            format: .amplitude, record: #"{"event_type":"Played","user_id":null,"device_id":null,"event_time":"2025-03-01 09:59:58.123000"}"#,
            reason: "missing_field", detail: "amplitude: user_id and device_id are both missing"),
        Bad(
            format: .amplitude, record: #"{"event_type":"Played","user_id":"u1","event_time":"yesterday"}"#,
            reason: "invalid_field", detail: "amplitude: event_time is not a valid timestamp"),
        Bad(
            format: .amplitude, record: #"{"event_type":"Played","user_id":"u1","event_time":null,"client_event_time":null}"#,
            reason: "missing_field", detail: "amplitude: event_time is missing"),
        Bad(
            format: .amplitude, record: #"{"event_type":"$groupidentify","user_id":"u1","event_time":"2025-03-01 09:59:58","groups":{}}"#,
            reason: "missing_field", detail: "amplitude: groups is missing"),
        Bad(
            format: .mixpanel, record: #"{"event":"Played","properties":{"distinct_id":"u1"}}"#,
            reason: "missing_field", detail: "mixpanel: properties.time is missing"),
        Bad(
            format: .mixpanel, record: #"{"event":"Played","properties":{"time":"1740823198","distinct_id":"u1"}}"#,
            reason: "invalid_field", detail: "mixpanel: properties.time is not a number of seconds or milliseconds"),
        Bad(
            format: .mixpanel, record: #"{"properties":{"time":1740823198,"distinct_id":"u1"}}"#,
            reason: "missing_field", detail: "mixpanel: event is missing"),
        Bad(
            format: .mixpanel, record: #"{"event":"Played","properties":{"time":1740823198}}"#,
            reason: "missing_field", detail: "mixpanel: properties.distinct_id is missing"),
        Bad(
            format: .mixpanel, record: #"{"event":"$create_alias","properties":{"time":1740823198,"distinct_id":"a"}}"#,
            reason: "missing_field", detail: "mixpanel: properties.alias is missing"),
        Bad(
            format: .ga4, record: #"{"event_name":"page_view","event_timestamp":"17408231981234x6","user_pseudo_id":"1.2"}"#,
            reason: "invalid_field", detail: "ga4: event_timestamp is not a number of microseconds"),
        Bad(
            format: .ga4, record: #"{"event_name":"page_view","user_pseudo_id":"1.2"}"#,
            reason: "missing_field", detail: "ga4: event_timestamp is missing"),
        Bad(
            format: .ga4, record: #"{"event_name":"page_view","event_timestamp":"1740823198123456","user_id":null,"user_pseudo_id":null}"#,
            reason: "missing_field", detail: "ga4: user_id and user_pseudo_id are both missing"),
        Bad(
            format: .mparticle,
            record:
                #"{"events":[{"event_type":"custom_event","data":{"event_name":"A","timestamp_unixtime_ms":"1740823198123"}},{"event_type":"custom_event","data":{"event_name":"B"}}],"mpid":"1"}"#,
            reason: "missing_field", detail: "mparticle: events[1].data.timestamp_unixtime_ms is missing"),
        Bad(
            format: .mparticle,
            record: #"{"events":[{"event_type":"custom_event","data":{"event_name":"A","timestamp_unixtime_ms":"soon"}}],"mpid":"1"}"#,
            reason: "invalid_field", detail: "mparticle: events[0].data.timestamp_unixtime_ms is not a number of milliseconds"),
        Bad(
            format: .mparticle, record: #"{"events":[{"event_type":"custom_event","data":{"timestamp_unixtime_ms":"1740823198123"}}],"mpid":"1"}"#,
            reason: "missing_field", detail: "mparticle: events[0].data.event_name is missing"),
        Bad(
            format: .mparticle,
            record: #"{"events":[{"event_type":"custom_event","data":{"event_name":"A","timestamp_unixtime_ms":1}}],"user_identities":[]}"#,
            reason: "missing_field", detail: "mparticle: user_identities.customer_id and mpid are both missing"),
        Bad(
            format: .posthog, record: #"{"uuid":"u","event":"x","distinct_id":"d","properties":{}}"#,
            reason: "missing_field", detail: "posthog: timestamp is missing"),
        Bad(
            format: .posthog, record: #"{"uuid":"u","event":"x","distinct_id":"d","timestamp":"2025-03-01T09:59:58Z","properties":"[1,2]"}"#,
            reason: "invalid_field", detail: "posthog: properties is a string that does not hold a JSON object"),
        Bad(
            format: .posthog, record: #"{"uuid":"u","event":"x","timestamp":"2025-03-01T09:59:58Z","properties":{}}"#,
            reason: "missing_field", detail: "posthog: distinct_id is missing"),
        Bad(
            format: .rudderstack,
            record:
                #"{"userId":"","payload":{"batch":[{"type":"track","event":"A","anonymousId":"a","timestamp":"2025-03-01T09:59:58Z"},{"type":"bogus","anonymousId":"a"}]},"messageId":""}"#,
            reason: "invalid_field", detail: "rudderstack: payload.batch[1].type is not a Segment call type"),
        Bad(
            format: .rudderstack, record: #"{"userId":"","payload":{"receivedAt":"2025-03-01T09:59:58Z"},"messageId":""}"#,
            reason: "missing_field", detail: "rudderstack: payload.batch is missing"),
        Bad(
            format: .rudderstack, record: #"{"userId":"","payload":{"batch":[{"type":"track","event":"A","anonymousId":"a"}]},"messageId":""}"#,
            reason: "missing_field", detail: "rudderstack: payload.batch[0].timestamp is missing"),
    ]

    @Test("fails naming the recipe and the field", arguments: bad)
    func fails(_ bad: Bad) {
        let failure = Convert.failure(bad.format, bad.record)
        #expect(failure?.reason == bad.reason, "\(bad.record): \(String(describing: failure))")
        #expect(failure?.detail == bad.detail, "\(bad.record): \(String(describing: failure))")
    }

    @Test("every recipe rejects a record that is not a JSON object", arguments: ExportFormat.allCases, [#"[{"a":1}]"#, "42", #""text""#, "null"])
    func notAnObject(_ format: ExportFormat, _ record: String) {
        let failure = Convert.failure(format, record)
        #expect(
            failure == RecipeFailure(reason: "not_an_object", detail: "\(format.rawValue): the record is not a JSON object"),
            "\(record): \(String(describing: failure))")
    }

    @Test("every recipe rejects bytes that are not JSON", arguments: ExportFormat.allCases, [#"{"event":"a""#, "{'a':1}", #"{"a":1} x"#, ""])
    func notJSON(_ format: ExportFormat, _ record: String) {
        let failure = Convert.failure(format, record)
        #expect(failure?.reason == "invalid_json", "\(record): \(String(describing: failure))")
        #expect(failure?.detail.hasPrefix("\(format.rawValue): the record is not valid JSON") == true, "\(String(describing: failure))")
    }

    @Test("a failing record leaves the output as it was, even after some of its events were written")
    func rollsBack() throws {
        var recipe = ExportRecipe(.mparticle)
        var out = Array("previous".utf8)
        var events = [0..<8]
        let record = Array(Self.bad[13].record.utf8)
        var failed: RecipeFailure?
        record.withUnsafeBufferPointer { buffer in
            do throws(RecipeFailure) {
                try recipe.convert(buffer, into: &out, events: &events)
            } catch {
                failed = error
            }
        }
        #expect(failed != nil)
        #expect(String(decoding: out, as: UTF8.self) == "previous", "\(String(decoding: out, as: UTF8.self))")
        #expect(events == [0..<8], "\(events)")
    }

    @Test("a recipe that failed converts the next record as a fresh one would")
    func recoversAfterFailure() throws {
        let format = ExportFormat.mixpanel
        let record = Fixtures.records(format)[1]
        var recipe = ExportRecipe(format)
        _ = Convert.events(&recipe, FailureTests.bad[5].record)
        let afterFailure = Convert.events(&recipe, record)
        let fresh = Convert.events(format, record)
        #expect(try afterFailure.get() == fresh.get(), "\(afterFailure)")
    }
}
