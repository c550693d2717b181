import EventTransforms
import JSONCore
import Testing

@Suite("jq")
struct JQTests {
    static let event = #"{"type":"track","event":"Buy","userId":"u1","properties":{"price":9.90,"plan":"free"},"context":{"ip":"1.2.3.4"}}"#

    @Test func transformsTheEvent() throws {
        let r = try run(#"[{"jq": ".properties.plan = \"pro\" | .context.library = {name: \"x\"}"}]"#, Self.event)
        #expect(r.outcome == .kept(changed: true))
        #expect(
            r.text
                == #"{"type":"track","event":"Buy","userId":"u1","properties":{"price":9.90,"plan":"pro"},"context":{"ip":"1.2.3.4","library":{"name":"x"}}}"#,
            "got \(r.text)")
    }

    @Test(arguments: [
        ("empty", Self.event, true),
        (#"select(.type == "identify")"#, Self.event, true),
        (#"select(.type == "track")"#, Self.event, false),
        (#"if .properties.plan == "free" then empty else . end"#, Self.event, true),
    ])
    func noOutputDropsTheEvent(expression: String, event: String, dropped: Bool) throws {
        let steps = JSONValue.array([.object(["jq": .string(expression)])])
        let r = try run(EventTransformer(TransformPlan(parsing: steps)), event)
        #expect(r.outcome == (dropped ? .dropped(step: 1) : .kept(changed: false)), "\(expression)")
    }

    @Test func anUnchangedEventKeepsItsExactBytesCompacted() throws {
        let event = "{ \"a\" : 1.50, \"b\" : [ 1e3 , -0 ], \"c\":\"\\u00e9\\n\\u007f\", \"d\": 12345678901234567890 }"
        let r = try run(#"[{"jq": "."}]"#, event)
        #expect(r.outcome == .kept(changed: false))
        #expect(r.text == #"{"a":1.50,"b":[1e3,-0],"c":"\u00e9\n\u007f","d":12345678901234567890}"#, "got \(r.text)")
    }

    @Test(arguments: [
        (#".properties.price.amount"#, #"step 1 (jq): Cannot index number with string "amount""#),
        (#"error("bad event")"#, "step 1 (jq): bad event"),
        (#"error({code: 7})"#, #"step 1 (jq): error (not a string): {"code":7}"#),
        (#"., ."#, "step 1 (jq): the expression produced more than one output; a jq step must produce one object, or none to drop the event"),
        (#"., error("late")"#, "step 1 (jq): late"),
        (#".userId"#, "step 1 (jq): the expression produced a string, not an object"),
        (#"[.]"#, "step 1 (jq): the expression produced an array, not an object"),
        (#"halt"#, "step 1 (jq): the expression called halt or halt_error, which a jq step does not support"),
        (#""stop" | halt_error"#, "step 1 (jq): the expression called halt or halt_error, which a jq step does not support: stop"),
        (#"input"#, "step 1 (jq): break"),
        (#"[inputs] | error"#, "step 1 (jq): error (not a string): []"),
    ])
    func failuresNameTheStep(expression: String, detail: String) throws {
        let steps = JSONValue.array([.object(["jq": .string(expression)])])
        let transformer = try EventTransformer(TransformPlan(parsing: steps))
        do throws(TransformFailure) {
            let r = try run(transformer, Self.event)
            Issue.record("\(expression) did not fail: \(r.text)")
        } catch {
            #expect(error.reason == "transform_failed")
            #expect(error.step == 1)
            #expect(error.detail == detail, "\(expression)")
            #expect(transformer.counters.steps[0].failed == 1)
        }
    }

    @Test func anyObjectOutputReplacesTheEvent() throws {
        let r = try run(#"[{"jq": ".properties"}]"#, Self.event)
        #expect(r.outcome == .kept(changed: true))
        // Moved to a new place, the price is a double to jq.
        #expect(r.text == #"{"price":9.9,"plan":"free"}"#, "got \(r.text)")
    }

    @Test func aCompileErrorIsAConfigErrorNamingTheStep() throws {
        let e = try #require(try configError(#"[{"delete": "a"}, {"jq": ".a |||"}]"#))
        #expect(e.step == 2)
        #expect(e.kind == "jq")
        #expect(e.key == "jq")
        #expect(e.message.hasPrefix("the expression does not compile: jq: error: syntax error"), "got \(e.message)")
        #expect(!e.message.contains("compile error"), "got \(e.message)")
        #expect(e.description.hasPrefix("transform step 2 (jq): the expression does not compile"), "got \(e.description)")
    }

    @Test func anUnknownFunctionIsACompileError() throws {
        let e = try #require(try configError(#"[{"jq": "frobnicate(.a)"}]"#))
        #expect(e.message.contains("frobnicate/1 is not defined"), "got \(e.message)")
    }

    @Test(arguments: [#"import "m" as m; ."#, #"include "m"; ."#, #"import "m" as $data; ."#])
    func modulesAreNotFound(expression: String) throws {
        // jq 1.6 asserts (and aborts the process) on imports unless its module attributes are set.
        let e = try #require(try configError(JSONValue.array([.object(["jq": .string(expression)])]).encodedString))
        #expect(e.message == "the expression does not compile: jq: error: module not found: m", "got \(e.message)")
    }

    @Test func keysAndStringsComeOutValid() throws {
        let r = try run(#"[{"jq": ".[\"k\\\"ey\\n\"] = \"v\\u0000é\" | .[\"ü\"] = 1"}]"#, #"{"a":"x"}"#)
        #expect(r.value == (try json(#"{"a":"x","k\"ey\n":"v\u0000é","ü":1}"#)), "got \(r.text)")
    }

    @Test func anEventNestedDeeperThanJqReadsFails() throws {
        // Valid for the event reader (up to 512 levels) but deeper than jq 1.6 parses (256).
        let deep = String(repeating: #"{"a":"#, count: 300) + "1" + String(repeating: "}", count: 300)
        let f = try #require(try failure(#"[{"jq": "."}]"#, deep))
        #expect(f.detail.hasPrefix("step 1 (jq): jq could not read the event: Exceeds depth limit for parsing"), "got \(f.detail)")
    }

    @Test func eachTransformerCompilesItsOwnProgram() throws {
        let shared = try plan(#"[{"jq": ".n += 1"}]"#)
        let a = try EventTransformer(shared)
        let b = try EventTransformer(shared)
        #expect(try run(a, #"{"n":1}"#).text == #"{"n":2}"#)
        #expect(try run(b, #"{"n":5}"#).text == #"{"n":6}"#)
        #expect(try run(a, #"{"n":2}"#).text == #"{"n":3}"#)
    }
}
