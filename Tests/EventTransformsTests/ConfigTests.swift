import EventTransforms
import JSONCore
import Testing

@Suite("configuration")
struct ConfigTests {
    @Test func aFullSectionReadsIntoSteps() throws {
        let p = try plan(
            #"""
            [{"rename": {"from": "properties.$browser", "to": ["context", "user.agent"]}},
             {"set": {"path": "context.library.name", "value": "mr-replay", "if_absent": "yes"}},
             {"delete": "context.ip"},
             {"delete": ["a", "b.c"]},
             {"map_events": {"signup": "Signed Up"}},
             {"drop": {"event": ["Test Event"], "type": "track"}},
             {"keep": {"field": "userId", "exists": true}},
             {"copy_properties_to_traits": ["email"]},
             {"copy_properties_to_traits": "all"},
             {"jq": ".properties.plan //= \"free\""}]
            """#)
        let path = { (s: String) in FieldPath(dotted: s)! }
        #expect(
            p.steps == [
                .rename(from: path("properties.$browser"), to: FieldPath(components: ["context", "user.agent"])!),
                .set(path: path("context.library.name"), value: "mr-replay", ifAbsent: true),
                .delete([path("context.ip")]),
                .delete([path("a"), path("b.c")]),
                .mapEvents(EventNameMap([(from: "signup", to: "Signed Up")])),
                .drop(EventCondition(types: ["track"], events: ["Test Event"])),
                .keep(EventCondition(field: FieldTest(path: path("userId"), test: .exists(true)))),
                .copyPropertiesToTraits(.keys(["email"])),
                .copyPropertiesToTraits(.all),
                .jq(#".properties.plan //= "free""#),
            ])
    }

    @Test func anEmptySectionIsNoSteps() throws {
        #expect(try plan("null").isEmpty)
        #expect(try plan("[]").isEmpty)
    }

    /// (section, step, key, suggestion, start of the message)
    static let errors: [(String, Int, String?, String?, String)] = [
        (#"{"rename": {}}"#, 0, nil, nil, "the section must be a list of steps"),
        (#"["rename"]"#, 1, nil, nil, "a step must be a mapping with one step kind"),
        (#"[{"delete": "a"}, {"renam": {"from": "a", "to": "b"}}]"#, 2, "renam", "rename", "unknown step kind 'renam'"),
        (#"[{"frobnicate": 1}]"#, 1, "frobnicate", nil, "unknown step kind 'frobnicate' (kinds: rename, set,"),
        (#"[{"rename": {"from": "a", "to": "b"}, "set": {}}]"#, 1, "set", nil, "a step must have exactly one step kind"),
        (#"[{"rename": {"form": "a", "to": "b"}}]"#, 1, "form", "from", "unknown key 'form'"),
        (#"[{"rename": {"from": "a"}}]"#, 1, "to", nil, "missing 'to'"),
        (#"[{"rename": {"from": "a", "to": "a"}}]"#, 1, "to", nil, "'from' and 'to' are the same path"),
        (#"[{"rename": {"from": "properties..a", "to": "b"}}]"#, 1, "from", nil, "'from' is not a valid path"),
        (#"[{"rename": {"from": "a\\", "to": "b"}}]"#, 1, "from", nil, "'from' is not a valid path"),
        (#"[{"rename": {"from": 3, "to": "b"}}]"#, 1, "from", nil, "'from' must be a path"),
        (#"[{"set": {"path": "a", "value": 1, "if_absnet": true}}]"#, 1, "if_absnet", "if_absent", "unknown key 'if_absnet'"),
        (#"[{"set": {"path": "a", "value": 1, "if_absent": "maybe"}}]"#, 1, "if_absent", nil, "'if_absent' must be true or false"),
        (#"[{"set": {"path": "a"}}]"#, 1, "value", nil, "missing 'value'"),
        (#"[{"delete": []}]"#, 1, "delete", nil, "'delete' must name at least one path"),
        (#"[{"map_events": {"a": 1}}]"#, 1, "a", nil, "the new name for 'a' must be a non-empty string"),
        (#"[{"map_events": []}]"#, 1, nil, nil, "'map_events' must be a mapping"),
        (#"[{"drop": {"typ": "track"}}]"#, 1, "typ", "type", "unknown key 'typ'"),
        (#"[{"drop": {"type": ["track", "idnetify"]}}]"#, 1, "type", "identify", "unknown event type 'idnetify'"),
        (#"[{"keep": {}}]"#, 1, nil, nil, "the condition needs 'type', 'event' or 'field'"),
        (#"[{"keep": {"field": "a", "equals": 1, "exists": true}}]"#, 1, "field", nil, "'field' needs exactly one of"),
        (#"[{"keep": {"field": "a"}}]"#, 1, "field", nil, "'field' needs exactly one of"),
        (#"[{"keep": {"equals": 1}}]"#, 1, "equals", nil, "'equals' needs a 'field'"),
        (#"[{"keep": {"field": "a", "in": []}}]"#, 1, "in", nil, "'in' must be a non-empty list"),
        (#"[{"copy_properties_to_traits": {}}]"#, 1, "copy_properties_to_traits", nil, "'copy_properties_to_traits' must be a string or"),
        (#"[{"jq": 3}]"#, 1, "jq", nil, "'jq' must be a non-empty string"),
        (#"[{"delete": "a"}, {"delete": "b"}, {"jq": "{"}]"#, 3, "jq", nil, "the expression does not compile"),
    ]

    @Test(arguments: errors)
    func errorsNameTheStepTheKeyAndTheClosestKey(section: String, step: Int, key: String?, suggestion: String?, message: String) throws {
        let e = try #require(try configError(section), "\(section) parsed")
        #expect(e.step == step, "\(e)")
        #expect(e.key == key, "\(e)")
        #expect(e.suggestion == suggestion, "\(e)")
        #expect(e.message.hasPrefix(message), "\(e)")
    }

    @Test func theDescriptionReadsAsOneLine() throws {
        let e = try #require(try configError(#"[{"delete": "a"}, {"rename": {"form": "a", "to": "b"}}]"#))
        #expect(e.description == "transform step 2 (rename): unknown key 'form'; did you mean 'from'?")
    }

    @Test(arguments: [
        ("properties.price", ["properties", "price"]),
        ("a\\.b.c", ["a.b", "c"]),
        ("a\\\\.b", ["a\\", "b"]),
        ("ключ.é", ["ключ", "é"]),
    ])
    func dottedPathsSplitOnUnescapedDots(text: String, keys: [String]) throws {
        let path = try #require(FieldPath(dotted: text))
        #expect(path.components == keys)
        #expect(path.description == text)
    }
}
