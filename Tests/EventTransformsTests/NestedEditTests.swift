import EventTransforms
import JSONCore
import Testing

/// Steps that reach into objects, after other steps reached into (or replaced) them.
@Suite("nested edits")
struct NestedEditTests {
    @Test(arguments: [
        // (steps, event, expected output)
        (
            #"[{"set": {"path": "p.obj", "value": {"a": 1}}}, {"rename": {"from": "p.obj.a", "to": "p.obj.b"}}]"#,
            #"{"p":{"x":1.50}}"#, #"{"p":{"x":1.50,"obj":{"b":1}}}"#
        ),
        (
            #"[{"set": {"path": "p.x", "value": 1}}, {"rename": {"from": "p", "to": "props"}}]"#,
            #"{"p":{"a":"é"},"z":0}"#, #"{"z":0,"props":{"a":"é","x":1}}"#
        ),
        (
            #"[{"set": {"path": "p.x", "value": 1}}, {"rename": {"from": "p", "to": "q.r"}}, {"delete": "q.r.a"}]"#,
            #"{"p":{"a":2,"b":3}}"#, #"{"q":{"r":{"b":3,"x":1}}}"#
        ),
        (#"[{"delete": "p.a"}]"#, #"{"p":{"a":1,"b":0,"a":2}}"#, #"{"p":{"b":0}}"#),
        (#"[{"set": {"path": "p.a", "value": 3}}]"#, #"{"p":{"a":1,"b":0,"a":2}}"#, #"{"p":{"b":0,"a":3}}"#),
        (
            #"[{"rename": {"from": "p.b", "to": "p.c"}}]"#, #"{ "p" : { "a" : [ 1, {"x" : 2} ] , "b" : 1 } , "q" : 2 }"#,
            #"{"p":{"a":[1,{"x":2}],"c":1},"q":2}"#
        ),
        (#"[{"rename": {"from": "p.b", "to": "p.c"}}]"#, #"{"p":{"\u0061":1,"b":2}}"#, #"{"p":{"\u0061":1,"c":2}}"#),
        (#"[{"set": {"path": "p.q.r", "value": true}}]"#, #"{"p":{"q":null}}"#, #"{"p":{"q":{"r":true}}}"#),
    ])
    func stepsComposeOnNestedObjects(steps: String, event: String, expected: String) throws {
        let r = try run(steps, event)
        #expect(r.text == expected, "got \(r.text)")
    }

    @Test func aWriteThroughAValueAStepWroteChecksItsKind() throws {
        let f = try #require(try failure(#"[{"set": {"path": "a", "value": "s"}}, {"set": {"path": "a.b.c", "value": 1}}]"#, #"{"x":1}"#))
        #expect(f.detail == "step 2 (set): cannot set 'a.b.c': 'a' is a string, not an object")
        let g = try #require(try failure(#"[{"set": {"path": "a", "value": {"b": [1]}}}, {"set": {"path": "a.b.c", "value": 1}}]"#, #"{"x":1}"#))
        #expect(g.detail == "step 2 (set): cannot set 'a.b.c': 'a.b' is an array, not an object")
    }

    @Test func conditionsSeeWhatEarlierStepsWrote() throws {
        let steps = #"[{"set": {"path": "p.n", "value": 5}}, {"drop": {"field": "p.n", "equals": 5.0}}]"#
        #expect(try run(steps, #"{"p":{"a":1}}"#).outcome == .dropped(step: 2))
        let copy = #"[{"set": {"path": "properties.email", "value": "a@b"}}, {"copy_properties_to_traits": "all"}]"#
        let r = try run(copy, #"{"type":"identify","properties":{"n":1.50}}"#)
        #expect(r.text == #"{"type":"identify","properties":{"n":1.50,"email":"a@b"},"traits":{"n":1.50,"email":"a@b"}}"#, "got \(r.text)")
    }

    @Test func readingANestedFieldChangesNothing() throws {
        let event = #"{"p":{"a":{"b":[1,2]},"c":"x y"},"n":1e3}"#
        let r = try run(#"[{"keep": {"field": "p.a.b", "exists": true}}, {"drop": {"field": "p.c", "in": ["z"]}}]"#, event)
        #expect(r.outcome == .kept(changed: false))
        #expect(r.text == event)
    }
}
