import EventTransforms
import JSONCore
import Testing

@Suite("set")
struct SetTests {
    @Test(arguments: [
        // (event, expected)
        (#"{"type":"track"}"#, #"{"type":"track","context":{"library":{"name":"mr-replay"}}}"#),
        (#"{"context":{"ip":"x"}}"#, #"{"context":{"ip":"x","library":{"name":"mr-replay"}}}"#),
        (#"{"context":{"library":{"name":"old","version":"1"}}}"#, #"{"context":{"library":{"name":"mr-replay","version":"1"}}}"#),
        (#"{"context":{"library":null}}"#, #"{"context":{"library":{"name":"mr-replay"}}}"#),
    ])
    func writesCreatingObjectsOnTheWay(event: String, expected: String) throws {
        let r = try run(#"[{"set": {"path": "context.library.name", "value": "mr-replay"}}]"#, event)
        #expect(r.text == expected, "got \(r.text)")
        #expect(r.outcome == .kept(changed: true))
    }

    @Test func theSameValueIsNoChange() throws {
        let r = try run(#"[{"set": {"path": "properties.plan", "value": "pro"}}]"#, #"{"properties":{"plan":"pro"}}"#)
        #expect(r.outcome == .kept(changed: false))
    }

    @Test(arguments: [
        (#"{"channel":"web"}"#, #"{"channel":"web"}"#),
        (#"{"channel":null}"#, #"{"channel":null}"#),
        (#"{"type":"page"}"#, #"{"type":"page","channel":"server"}"#),
    ])
    func ifAbsentWritesOnlyWhereNothingIs(event: String, expected: String) throws {
        let r = try run(#"[{"set": {"path": "channel", "value": "server", "if_absent": true}}]"#, event)
        #expect(r.text == expected, "got \(r.text)")
    }

    @Test func valuesOfEveryKindAreWrittenExactly() throws {
        let r = try run(
            #"[{"set": {"path": "properties.v", "value": {"n": 1.50, "big": 12345678901234567890, "s": "é\n\"", "a": [true, null]}}}]"#,
            #"{"properties":{}}"#)
        #expect(r.text == #"{"properties":{"v":{"n":1.50,"big":12345678901234567890,"s":"é\n\"","a":[true,null]}}}"#, "got \(r.text)")
    }

    @Test(arguments: [#"{"properties":"flat"}"#, #"{"properties":[1]}"#, #"{"properties":true}"#])
    func writingThroughANonObjectFails(event: String) throws {
        let f = try #require(try failure(#"[{"set": {"path": "properties.plan", "value": "pro", "if_absent": true}}]"#, event))
        #expect(f.reason == TransformFailure.transformFailed)
        #expect(f.detail.hasPrefix("step 1 (set): cannot set 'properties.plan': 'properties' is "), "got \(f.detail)")
    }
}
