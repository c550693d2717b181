import XCTest

@testable import ReplayKit

/// The low-watermark only passes settled lines, and each input's position is where its settled
/// prefix ends.
final class SettlementTrackerTests: XCTestCase {
    func testWatermarkAndPositionsFollowTheSettledPrefix() {
        var t = SettlementTracker()
        // Input 0: lines 1-3, input 1: lines 1-2, then input 0 again (interleaved inputs).
        let a1 = t.append(input: 0, endOffset: 10, lineNumber: 1, settled: false)
        let a2 = t.append(input: 0, endOffset: 20, lineNumber: 2, settled: true)
        let a3 = t.append(input: 0, endOffset: 30, lineNumber: 3, settled: false)
        let b1 = t.append(input: 1, endOffset: 5, lineNumber: 1, settled: false)
        let b2 = t.append(input: 1, endOffset: 9, lineNumber: 2, settled: true)
        let a4 = t.append(input: 0, endOffset: 40, lineNumber: 4, settled: false)
        XCTAssertEqual([a1, a2, a3, b1, b2, a4], [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(t.watermark, 0)
        XCTAssertTrue(t.positions.isEmpty)

        // Settling out of order moves nothing until the oldest line settles.
        XCTAssertEqual(t.settle(b1), 1)
        XCTAssertEqual(t.settle(a3), 0)
        XCTAssertEqual(t.watermark, 0)
        XCTAssertNil(t.settle(b1), "already settled")
        XCTAssertEqual(t.entry(a4)?.lineNumber, 4)
        XCTAssertEqual(t.entry(a4)?.settled, false)

        // The oldest settles: everything up to the still-open a4 passes, per input.
        XCTAssertEqual(t.settle(a1), 0)
        XCTAssertEqual(t.watermark, 5)
        XCTAssertEqual(t.outstanding, 1)
        XCTAssertEqual(t.positions[0], .init(offset: 30, lineNumber: 3))
        XCTAssertEqual(t.positions[1], .init(offset: 9, lineNumber: 2))
        XCTAssertNil(t.settle(a1), "behind the watermark")

        XCTAssertEqual(t.settle(a4), 0)
        XCTAssertEqual(t.watermark, 6)
        XCTAssertEqual(t.outstanding, 0)
        XCTAssertEqual(t.positions[0], .init(offset: 40, lineNumber: 4))
        XCTAssertNil(t.settle(99), "unknown")
    }
}
