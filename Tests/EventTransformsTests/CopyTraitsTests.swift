import EventTransforms
import JSONCore
import Testing

@Suite("copy_properties_to_traits")
struct CopyTraitsTests {
    @Test(arguments: [
        // (selection, event, expected)
        (
            #"["email", "name"]"#, #"{"type":"identify","properties":{"email":"a@b","name":"A","x":1}}"#,
            #"{"type":"identify","properties":{"email":"a@b","name":"A","x":1},"traits":{"email":"a@b","name":"A"}}"#
        ),
        (
            #""all""#, #"{"type":"identify","properties":{"email":"a@b","x":1.50},"traits":{"email":"old"}}"#,
            #"{"type":"identify","properties":{"email":"a@b","x":1.50},"traits":{"email":"old","x":1.50}}"#
        ),
        (
            #""email""#, #"{"type":"identify","properties":{"email":"a@b"},"traits":null}"#,
            #"{"type":"identify","properties":{"email":"a@b"},"traits":{"email":"a@b"}}"#
        ),
    ])
    func copiesIntoTraitsWithoutOverwriting(selection: String, event: String, expected: String) throws {
        let r = try run(#"[{"copy_properties_to_traits": \#(selection)}]"#, event)
        #expect(r.text == expected, "got \(r.text)")
    }

    @Test(arguments: [
        #"{"type":"track","properties":{"email":"a@b"}}"#,
        #"{"type":"identify"}"#,
        #"{"type":"identify","properties":"flat"}"#,
        #"{"type":"identify","properties":{"name":"A"}}"#,
        #"{"type":"identify","properties":{"email":"a@b"},"traits":{"email":"kept"}}"#,
    ])
    func leavesOtherEventsAlone(event: String) throws {
        let r = try run(#"[{"copy_properties_to_traits": ["email"]}]"#, event)
        #expect(r.outcome == .kept(changed: false))
        #expect(r.value == (try json(event)), "got \(r.text)")
    }

    @Test func traitsThatAreNotAnObjectFail() throws {
        let f = try #require(try failure(#"[{"copy_properties_to_traits": "all"}]"#, #"{"type":"identify","properties":{"a":1},"traits":"x"}"#))
        #expect(f.detail == "step 1 (copy_properties_to_traits): cannot copy properties to traits: 'traits' is a string, not an object")
    }
}
