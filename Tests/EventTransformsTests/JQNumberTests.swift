import EventTransforms
import JSONCore
import Testing

/// What jq 1.6 (Debian's libjq) does to numbers: it holds each one as a double. Values the
/// expression leaves equal keep their exact text; values it computes or moves are doubles.
@Suite("jq and numbers")
struct JQNumberTests {
    static let event = #"{"type":"track","properties":{"order_id":12345678901234567890,"price":9.90,"ref":"12345678901234567890"}}"#

    @Test func aBigIntegerThatJqLeavesAloneKeepsItsDigits() throws {
        let r = try run(#"[{"jq": ".properties.plan = \"pro\""}]"#, Self.event)
        #expect(
            r.text == #"{"type":"track","properties":{"order_id":12345678901234567890,"price":9.90,"ref":"12345678901234567890","plan":"pro"}}"#,
            "got \(r.text)")
    }

    @Test(arguments: [
        // A 64-bit id read by jq becomes the nearest double: its last digits are lost.
        (".properties.copy = .properties.order_id", "12345678901234567000"),
        (".properties.copy = .properties.order_id + 1", "12345678901234567000"),
        (".properties.copy = 9007199254740993", "9007199254740992"),
        (".properties.copy = 100000000000000000000", "1e+20"),
        (".properties.copy = .properties.price", "9.9"),
        (".properties.copy = infinite", "1.7976931348623157e+308"),
        (".properties.copy = nan", "null"),
        (".properties.copy = (.properties.order_id | tostring)", #""12345678901234567000""#),
        // An id sent as a string is text to jq: exact.
        (".properties.copy = .properties.ref", #""12345678901234567890""#),
    ])
    func numbersThatJqComputesOrMovesAreDoubles(expression: String, copy: String) throws {
        let steps = JSONValue.array([.object(["jq": .string(expression)])])
        let r = try run(EventTransformer(TransformPlan(parsing: steps)), Self.event)
        let copied = r.value?.objectValue?["properties"]?.objectValue?["copy"]
        #expect(copied?.encodedString == copy, "\(expression) gave \(r.text)")
        // The original id, untouched by the expression, keeps its digits.
        #expect(r.text.contains(#""order_id":12345678901234567890,"#), "got \(r.text)")
    }

    @Test func aChangedArrayIsWrittenAsJqWritesIt() throws {
        let r = try run(#"[{"jq": ".items += [3]"}]"#, #"{"items":[1.50,12345678901234567890],"n":1.50}"#)
        #expect(r.text == #"{"items":[1.5,12345678901234567000,3],"n":1.50}"#, "got \(r.text)")
    }
}
