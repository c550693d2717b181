import EventTransforms
import JSONCore
import Testing

@Suite("counters")
struct CountersTests {
    @Test func countWhatEachStepDid() throws {
        let t = try EventTransformer(
            plan(
                #"[{"drop": {"event": "QA"}}, {"set": {"path": "properties.plan", "value": "pro"}}, {"jq": "if .fail then error(\"x\") else . end"}]"#
            ))
        _ = try run(t, #"{"type":"track","event":"QA"}"#)
        _ = try run(t, #"{"type":"track","event":"Buy"}"#)
        _ = try run(t, #"{"type":"track","event":"Buy","properties":{"plan":"pro"}}"#)
        _ = try? run(t, #"{"type":"track","event":"Buy","fail":true}"#)
        _ = try? run(t, "nope")
        let c = t.counters
        #expect(c.events == 5)
        #expect(c.kept == 2)
        #expect(c.unreadable == 1)
        #expect(c.steps.map(\.dropped) == [1, 0, 0])
        #expect(c.steps.map(\.changed) == [0, 2, 0])
        #expect(c.steps.map(\.failed) == [0, 0, 1])
        #expect(c.dropped == 1 && c.failed == 1)
    }

    @Test func mergeAddsAnotherThreadsCounts() throws {
        let shared = try plan(#"[{"drop": {"type": "page"}}]"#)
        let a = try EventTransformer(shared)
        let b = try EventTransformer(shared)
        _ = try run(a, #"{"type":"page"}"#)
        _ = try run(b, #"{"type":"page"}"#)
        _ = try run(b, #"{"type":"track"}"#)
        var total = a.takeCounters()
        total.merge(b.counters)
        #expect(total.events == 3)
        #expect(total.kept == 1)
        #expect(total.steps[0].dropped == 2)
        #expect(a.counters == TransformCounters(stepCount: 1))
    }
}
