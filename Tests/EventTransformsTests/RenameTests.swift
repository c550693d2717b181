import EventTransforms
import JSONCore
import Testing

@Suite("rename")
struct RenameTests {
    @Test func movesATopLevelMemberKeepingItsBytes() throws {
        let r = try run(#"[{"rename": {"from": "userid", "to": "userId"}}]"#, #"{"type":"track","userid":12345678901234567890,"n":1.50}"#)
        #expect(r.outcome == .kept(changed: true))
        #expect(r.text == #"{"type":"track","n":1.50,"userId":12345678901234567890}"#, "got \(r.text)")
    }

    @Test func movesANestedMemberAndKeepsItsSiblings() throws {
        let r = try run(
            #"[{"rename": {"from": "properties.$price", "to": "properties.price"}}]"#,
            #"{"properties":{"$price":9.90,"sku":"a"}}"#)
        #expect(r.value == (try json(#"{"properties":{"sku":"a","price":9.90}}"#)), "got \(r.text)")
    }

    @Test func createsTheObjectsOnTheWayToTheNewPath() throws {
        let r = try run(#"[{"rename": {"from": "properties.ip", "to": "context.network.ip"}}]"#, #"{"properties":{"ip":"1.2.3.4"}}"#)
        #expect(r.value == (try json(#"{"properties":{},"context":{"network":{"ip":"1.2.3.4"}}}"#)), "got \(r.text)")
    }

    @Test func replacesANullOnTheWayWithAnObject() throws {
        let r = try run(#"[{"rename": {"from": "ip", "to": "context.ip"}}]"#, #"{"ip":"1.2.3.4","context":null}"#)
        #expect(r.value == (try json(#"{"context":{"ip":"1.2.3.4"}}"#)), "got \(r.text)")
    }

    @Test(arguments: [
        #"{"type":"track"}"#,
        #"{"properties":"flat"}"#,
        #"{"properties":{"items":[{"price":1}]}}"#,
        #"{"properties":null}"#,
    ])
    func aMissingSourceLeavesTheEventAlone(event: String) throws {
        let r = try run(#"[{"rename": {"from": "properties.price", "to": "properties.amount"}}]"#, event)
        #expect(r.outcome == .kept(changed: false))
        #expect(r.value == (try json(event)), "got \(r.text)")
    }

    @Test func anArrayIndexIsNotAPath() throws {
        // Components are object keys only: `items.0` names a key "0", which an array lacks.
        let r = try run(#"[{"rename": {"from": "properties.items.0", "to": "first"}}]"#, #"{"properties":{"items":[1,2]}}"#)
        #expect(r.outcome == .kept(changed: false))
    }

    @Test(arguments: [
        (#"{"a":1,"context":{"device":"phone"}}"#, "'context.device' is a string"),
        (#"{"a":1,"context":{"device":[1]}}"#, "'context.device' is an array"),
        (#"{"a":1,"context":7}"#, "'context' is a number"),
    ])
    func movingOntoANonObjectFails(event: String, expected: String) throws {
        let f = try #require(try failure(#"[{"set": {"path": "x", "value": 1}}, {"rename": {"from": "a", "to": "context.device.id"}}]"#, event))
        #expect(f.reason == "transform_failed")
        #expect(f.step == 2)
        #expect(f.detail.hasPrefix("step 2 (rename): cannot move 'a' to 'context.device.id': \(expected), not an object"), "got \(f.detail)")
    }

    @Test func anExistingTargetIsReplacedInPlaceAndItsDuplicatesGo() throws {
        let r = try run(#"[{"rename": {"from": "b", "to": "a"}}]"#, #"{"a":1,"x":0,"a":2,"b":3}"#)
        #expect(r.text == #"{"x":0,"a":3}"#, "got \(r.text)")
    }

    @Test func unicodeKeysMatchByTheirBytesNotByCanonicalEquivalence() throws {
        // "café" with a precomposed é (U+00E9) is not "cafe\u0301" (e and a combining accent).
        let r = try run(
            #"[{"rename": {"from": "properties.caf\#u{E9}", "to": "properties.coffee"}}]"#, #"{"properties":{"caf\#u{E9}":1,"cafe\u0301":2}}"#)
        // The member left alone keeps its key as written; JSONValue compares keys by bytes.
        #expect(r.text == #"{"properties":{"cafe\u0301":2,"coffee":1}}"#, "got \(r.text)")
        #expect(r.value == .object(["properties": .object(["cafe\u{301}": 2, "coffee": 1])]))
    }

    @Test func keysWrittenWithEscapesInTheEventMatch() throws {
        let r = try run(#"[{"rename": {"from": "properties.a", "to": "properties.b"}}]"#, #"{"pr\u006fperties":{"\u0061":"x"}}"#)
        #expect(r.value == (try json(#"{"properties":{"b":"x"}}"#)), "got \(r.text)")
    }

    @Test func aDotInsideAKeyIsEscapedOrWrittenAsAList() throws {
        let event = #"{"properties":{"a.b":1,"a":{"b":2}}}"#
        let escaped = try run(#"[{"rename": {"from": "properties.a\\.b", "to": "ab"}}]"#, event)
        let listed = try run(#"[{"rename": {"from": ["properties", "a.b"], "to": "ab"}}]"#, event)
        let dotted = try run(#"[{"rename": {"from": "properties.a.b", "to": "ab"}}]"#, event)
        #expect(escaped.value == (try json(#"{"properties":{"a":{"b":2}},"ab":1}"#)), "got \(escaped.text)")
        #expect(listed.text == escaped.text)
        #expect(dotted.value == (try json(#"{"properties":{"a.b":1,"a":{}},"ab":2}"#)), "got \(dotted.text)")
    }

    @Test func aWholeObjectCanMoveIntoItself() throws {
        let r = try run(#"[{"rename": {"from": "properties", "to": "properties.legacy"}}]"#, #"{"properties":{"a":1}}"#)
        #expect(r.text == #"{"properties":{"legacy":{"a":1}}}"#, "got \(r.text)")
    }
}
