import EventTransforms
import JSONCore
import Testing

@Suite("keep and drop")
struct KeepDropTests {
    /// (condition, event, whether the condition matches the event)
    static let cases: [(String, String, Bool)] = [
        (#"{"type": ["track", "page"]}"#, #"{"type":"page"}"#, true),
        (#"{"type": "track"}"#, #"{"type":"identify"}"#, false),
        (#"{"type": "track"}"#, #"{"kind":"track"}"#, false),
        (#"{"event": ["Test Event", "QA"]}"#, #"{"type":"track","event":"QA"}"#, true),
        (#"{"event": "Test Event"}"#, #"{"type":"track","event":"Test \u0045vent"}"#, true),
        (#"{"event": "Test Event"}"#, #"{"type":"track","event":"test event"}"#, false),
        (#"{"event": "Test Event"}"#, #"{"type":"identify"}"#, false),
        (#"{"type": "track", "event": "QA"}"#, #"{"type":"page","event":"QA"}"#, false),
        (#"{"field": "properties.test", "equals": true}"#, #"{"properties":{"test":true}}"#, true),
        (#"{"field": "properties.test", "equals": true}"#, #"{"properties":{"test":"true"}}"#, false),
        (#"{"field": "properties.n", "equals": 1}"#, #"{"properties":{"n":1.0}}"#, true),
        (#"{"field": "properties.n", "equals": 1e2}"#, #"{"properties":{"n":100}}"#, true),
        (#"{"field": "userId", "equals": 12345678901234567890}"#, #"{"userId":12345678901234567891}"#, false),
        (#"{"field": "context.app", "equals": {"name": "x"}}"#, #"{"context":{"app":{"name":"x"}}}"#, true),
        (#"{"field": "context.ip", "in": ["10.0.0.1", "10.0.0.2"]}"#, #"{"context":{"ip":"10.0.0.2"}}"#, true),
        (#"{"field": "context.ip", "in": ["10.0.0.1"]}"#, #"{"context":{}}"#, false),
        (#"{"field": "context.ip", "exists": true}"#, #"{"context":{"ip":null}}"#, true),
        (#"{"field": "context.ip", "exists": false}"#, #"{"context":"flat"}"#, true),
        (#"{"field": "context.ip", "exists": false}"#, #"{"context":{"ip":"x"}}"#, false),
        (#"{"field": "email", "exists": "yes"}"#, #"{"email":"a@b"}"#, true),
        (#"{"type": "identify", "field": "traits.email", "exists": false}"#, #"{"type":"identify","traits":{}}"#, true),
    ]

    @Test(arguments: cases)
    func dropRemovesMatchingEvents(condition: String, event: String, matches: Bool) throws {
        let r = try run(#"[{"set": {"path": "seen", "value": 1}}, {"drop": \#(condition)}]"#, event)
        #expect(r.outcome == (matches ? .dropped(step: 2) : .kept(changed: true)), "\(condition) on \(event)")
        #expect(r.text.isEmpty == matches)
    }

    @Test(arguments: cases)
    func keepRemovesTheOthers(condition: String, event: String, matches: Bool) throws {
        let r = try run(#"[{"keep": \#(condition)}]"#, event)
        #expect(r.outcome == (matches ? .kept(changed: false) : .dropped(step: 1)), "\(condition) on \(event)")
    }

    @Test func aDroppedEventReachesNoLaterStep() throws {
        let t = try EventTransformer(plan(#"[{"drop": {"event": "QA"}}, {"set": {"path": "x", "value": 1}}]"#))
        _ = try run(t, #"{"type":"track","event":"QA"}"#)
        _ = try run(t, #"{"type":"track","event":"Buy"}"#)
        #expect(t.counters.steps.map(\.dropped) == [1, 0])
        #expect(t.counters.steps.map(\.changed) == [0, 1])
    }
}
