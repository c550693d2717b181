import EventTransforms
import JSONCore
import Testing

@Suite("round trip")
struct RoundTripTests {
    /// Steps that change none of the events below.
    static let noOps = #"""
        [{"rename": {"from": "missing", "to": "x"}},
         {"set": {"path": "type", "value": "track", "if_absent": true}},
         {"delete": ["context.nothing", "nothing"]},
         {"map_events": {"never": "Never"}},
         {"drop": {"event": "never"}},
         {"keep": {"field": "type", "exists": true}},
         {"copy_properties_to_traits": "all"},
         {"set": {"path": "properties.price", "value": 1.50}}]
        """#

    static let events = [
        #"{"type":"track","event":"Buy","properties":{"price":1.50,"big":12345678901234567890,"e":1E+3,"neg":-0.0}}"#,
        #"{"type":"track","event":"\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t","properties":{"price":1.50,"k\u0000ey":"\u001f"}}"#,
        #"{"type":"track","event":"Ünïcödé ✓ 😀","properties":{"price":1.50,"emoji 😀":["a",{"b":[]}],"n":null,"t":true}}"#,
        #"{"type":"track","a":1,"a":2,"properties":{"price":1.50}}"#,
    ]

    @Test(arguments: events)
    func noOpStepsGiveBackTheSameValue(event: String) throws {
        let r = try run(Self.noOps, event)
        #expect(r.outcome == .kept(changed: false))
        #expect(r.value == (try json(event)), "got \(r.text)")
        #expect(r.text == event, "compact input comes back byte for byte")
    }

    @Test(arguments: events.prefix(3))
    func membersAJqStepLeavesAloneComeBackExactly(event: String) throws {
        let r = try run(#"[{"set": {"path": "x", "value": 1}}, {"jq": ".x = 2"}, {"delete": "x"}]"#, event)
        #expect(r.outcome == .kept(changed: true))
        #expect(r.text == event, "got \(r.text)")
    }

    @Test func jqKeepsTheLastOfDuplicatedKeys() throws {
        let r = try run(#"[{"jq": ".b = 1"}]"#, #"{"a":1.50,"a":2.50}"#)
        #expect(r.text == #"{"a":2.50,"b":1}"#, "got \(r.text)")
    }

    @Test func whitespaceBetweenTokensGoesAndStringsKeepTheirs() throws {
        let event = "  {\n\t\"type\" : \"track\" ,\r\n \"properties\" : { \"a b\" : [ 1 , { \"c\" : \" x \\\" y \" } ] } }\n"
        let r = try run("[]", event)
        #expect(r.text == #"{"type":"track","properties":{"a b":[1,{"c":" x \" y "}]}}"#, "got \(r.text)")
    }

    @Test func theOutputIsAppendedAfterWhatIsThere() throws {
        let transformer = try EventTransformer(plan(#"[{"set": {"path": "n", "value": 2}}]"#))
        var out = Array("previous\n".utf8)
        let event = Array(#"{"n":1}"#.utf8)
        let outcome = try event.withUnsafeBufferPointer { (b) throws(TransformFailure) -> TransformOutcome in
            try transformer.apply(b, into: &out)
        }
        #expect(outcome == .kept(changed: true))
        #expect(String(decoding: out, as: UTF8.self) == "previous\n{\"n\":2}")
    }
}
