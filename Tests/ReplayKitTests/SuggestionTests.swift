import Testing

@testable import ReplayKit

@Suite struct SuggestionTests {
    @Test func closestKeyIsSuggested() {
        #expect(Suggestion.closest(to: "max_event", among: ["max_events", "max_bytes"]) == "max_events")
        #expect(Suggestion.closest(to: "zzzzzz", among: ["host", "path"]) == nil)
        #expect(Suggestion.distance("kitten", "sitting") == 3)
    }
}
