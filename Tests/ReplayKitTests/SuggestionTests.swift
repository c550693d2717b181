import XCTest
@testable import ReplayKit

final class SuggestionTests: XCTestCase {
    func testClosestKeyIsSuggested() {
        XCTAssertEqual(Suggestion.closest(to: "max_event", among: ["max_events", "max_bytes"]), "max_events")
        XCTAssertNil(Suggestion.closest(to: "zzzzzz", among: ["host", "path"]))
        XCTAssertEqual(Suggestion.distance("kitten", "sitting"), 3)
    }
}
