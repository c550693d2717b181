import EventTransforms
import JSONCore
import Testing

@Suite("delete")
struct DeleteTests {
    @Test(arguments: [
        (#"[{"delete": "context.ip"}]"#, #"{"context":{"ip":"1.2.3.4","os":"x"},"a":1}"#, #"{"context":{"os":"x"},"a":1}"#),
        (#"[{"delete": ["a", "context.ip"]}]"#, #"{"context":{"ip":"1.2.3.4"},"a":1,"b":2}"#, #"{"context":{},"b":2}"#),
        (#"[{"delete": "a"}]"#, #"{"a":1,"b":2,"a":3}"#, #"{"b":2}"#),
        (#"[{"delete": [["properties", "a.b"]]}]"#, #"{"properties":{"a.b":1,"c":2}}"#, #"{"properties":{"c":2}}"#),
    ])
    func removesEveryPathPresent(steps: String, event: String, expected: String) throws {
        let r = try run(steps, event)
        #expect(r.text == expected, "got \(r.text)")
        #expect(r.outcome == .kept(changed: true))
    }

    @Test(arguments: [#"{"b":1}"#, #"{"context":"x"}"#, #"{"context":{"ips":[1]}}"#, #"{"context":null}"#])
    func anAbsentPathIsNoChange(event: String) throws {
        let r = try run(#"[{"delete": ["a", "context.ip"]}]"#, event)
        #expect(r.outcome == .kept(changed: false))
        #expect(r.value == (try json(event)), "got \(r.text)")
    }
}
