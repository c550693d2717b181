import XCTest
@testable import ReplayKit

final class TimestampTests: XCTestCase {
    func millis(_ s: String) -> Int64? {
        var a = Array(s.utf8)
        return a.withUnsafeMutableBufferPointer { Timestamps.parseMillis(UnsafeBufferPointer($0)) }
    }

    func testParsesZonesFractionsAndUTCDefault() {
        XCTAssertEqual(millis("1970-01-01T00:00:00Z"), 0)
        XCTAssertEqual(millis("2024-01-01T00:00:01.5Z"), 1_704_067_201_500)
        XCTAssertEqual(millis("2024-01-01T01:00:01.5+01:00"), 1_704_067_201_500)
        XCTAssertEqual(millis("2023-12-31T19:00:01.500123-0500"), 1_704_067_201_500)
        XCTAssertEqual(millis("2024-01-01 00:00:01.500"), 1_704_067_201_500)
        XCTAssertEqual(millis("2024-02-29T12:00:00Z"), 1_709_208_000_000)
        for bad in ["", "2024-01-01", "2024-13-01T00:00:00Z", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00+1", "yesterday", "2024-01-01T00:00:00Zjunk"] {
            XCTAssertNil(millis(bad), bad)
        }
    }

    func testFormatRoundTrips() {
        for m: Int64 in [0, 1_704_067_201_500, 1_700_000_000_123, 951_782_400_000] {
            var text = Array(Timestamps.format(millis: m).utf8)
            XCTAssertEqual(text.withUnsafeMutableBufferPointer { Timestamps.parseMillis(UnsafeBufferPointer($0)) }, m)
        }
        XCTAssertEqual(Timestamps.format(millis: 0), "1970-01-01T00:00:00.000Z")
    }
}
