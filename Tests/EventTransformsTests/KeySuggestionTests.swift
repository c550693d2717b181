import EventTransforms
import Testing

@Suite struct KeySuggestionTests {
    @Test func closestKeyIsSuggested() {
        #expect(KeySuggestion.closest(to: "max_event", among: ["max_events", "max_bytes"]) == "max_events")
        #expect(KeySuggestion.closest(to: "zzzzzz", among: ["host", "path"]) == nil)
        #expect(KeySuggestion.distance("kitten", "sitting") == 3)
    }
}
