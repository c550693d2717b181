import EventTransforms
import JSONCore
import Testing

@Suite("step order")
struct OrderTests {
    @Test func aSetBeforeARenameIsMovedByIt() throws {
        let event = #"{"type":"track"}"#
        let setFirst = try run(#"[{"set": {"path": "a", "value": 1}}, {"rename": {"from": "a", "to": "b"}}]"#, event)
        let renameFirst = try run(#"[{"rename": {"from": "a", "to": "b"}}, {"set": {"path": "a", "value": 1}}]"#, event)
        #expect(setFirst.text == #"{"type":"track","b":1}"#, "got \(setFirst.text)")
        #expect(renameFirst.text == #"{"type":"track","a":1}"#, "got \(renameFirst.text)")
    }

    @Test func aDropSeesTheNamesOfTheStepsBeforeIt() throws {
        let event = #"{"type":"track","event":"test"}"#
        let mapThenDrop = try run(#"[{"map_events": {"test": "Test Event"}}, {"drop": {"event": "Test Event"}}]"#, event)
        let dropThenMap = try run(#"[{"drop": {"event": "Test Event"}}, {"map_events": {"test": "Test Event"}}]"#, event)
        #expect(mapThenDrop.outcome == .dropped(step: 2))
        #expect(dropThenMap.outcome == .kept(changed: true))
        #expect(dropThenMap.text == #"{"type":"track","event":"Test Event"}"#)
    }

    @Test func declarativeStepsSeeWhatAJqStepMadeAndTheOtherWayRound() throws {
        let r = try run(
            #"""
            [{"rename": {"from": "properties.$plan", "to": "properties.plan"}},
             {"jq": ".properties.tier = (.properties.plan | ascii_upcase)"},
             {"set": {"path": "properties.seen", "value": 1.50}},
             {"jq": "if .properties.seen then .properties.ok = true else error(\"no\") end"}]
            """#,
            #"{"properties":{"$plan":"pro","id":12345678901234567890}}"#)
        #expect(r.text == #"{"properties":{"id":12345678901234567890,"plan":"pro","tier":"PRO","seen":1.50,"ok":true}}"#, "got \(r.text)")
    }
}
