import EventTransforms
import JSONCore
import Testing

@Suite("unreadable events")
struct InvalidInputTests {
    @Test(arguments: [
        ("{\"a\":", "invalid_json"),
        ("", "invalid_json"),
        ("[1,2]", "not_an_object"),
        ("\"text\"", "not_an_object"),
        ("{\"a\":\"\u{FF}\"}", "invalid_utf8"),
    ])
    func areReportedWithThePipelinesReasons(text: String, reason: String) throws {
        let transformer = try EventTransformer(plan(#"[{"jq": "."}]"#))
        var bytes = Array(text.utf8)
        if reason == "invalid_utf8" { bytes = [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D] }  // {"a":"\xFF"}
        var out: [UInt8] = []
        #expect {
            try bytes.withUnsafeBufferPointer { (b) throws(TransformFailure) -> TransformOutcome in try transformer.apply(b, into: &out) }
        } throws: { error in
            (error as? TransformFailure)?.reason == reason && (error as? TransformFailure)?.step == nil
        }
        #expect(out.isEmpty)
        #expect(transformer.counters.unreadable == 1)
        #expect(transformer.counters.steps[0].failed == 0)
    }
}
