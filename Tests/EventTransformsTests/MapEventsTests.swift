import EventTransforms
import JSONCore
import Testing

@Suite("map_events")
struct MapEventsTests {
    static let steps = #"[{"map_events": {"signup": "Signed Up", "Ordered ✓": "Order Completed", "same": "same"}}]"#

    @Test(arguments: [
        (#"{"type":"track","event":"signup"}"#, #"{"type":"track","event":"Signed Up"}"#, true),
        (#"{"type":"track","event":"Ordered ✓","n":1}"#, #"{"type":"track","event":"Order Completed","n":1}"#, true),
        (#"{"type":"track","event":"sign\u0075p"}"#, #"{"type":"track","event":"Signed Up"}"#, true),
        (#"{"type":"track","event":"Signup"}"#, #"{"type":"track","event":"Signup"}"#, false),
        (#"{"type":"track","event":"same"}"#, #"{"type":"track","event":"same"}"#, false),
        (#"{"type":"page","event":"signup"}"#, #"{"type":"page","event":"signup"}"#, false),
        (#"{"type":"track","event":7}"#, #"{"type":"track","event":7}"#, false),
        (#"{"type":"track"}"#, #"{"type":"track"}"#, false),
    ])
    func renamesMappedTrackEventsOnly(event: String, expected: String, changed: Bool) throws {
        let r = try run(Self.steps, event)
        #expect(r.text == expected, "got \(r.text)")
        #expect(r.outcome == .kept(changed: changed))
    }
}
