import ReplayKit
import Testing

/// The low-watermark only passes settled lines, and each input's position is where its settled
/// prefix ends.
@Suite struct SettlementTrackerTests {
    @Test func watermarkAndPositionsFollowTheSettledPrefix() {
        var t = SettlementTracker()
        // Input 0: lines 1-3, input 1: lines 1-2, then input 0 again (interleaved inputs).
        let a1 = t.append(input: 0, endOffset: 10, lineNumber: 1, settled: false)
        let a2 = t.append(input: 0, endOffset: 20, lineNumber: 2, settled: true)
        let a3 = t.append(input: 0, endOffset: 30, lineNumber: 3, settled: false)
        let b1 = t.append(input: 1, endOffset: 5, lineNumber: 1, settled: false)
        let b2 = t.append(input: 1, endOffset: 9, lineNumber: 2, settled: true)
        let a4 = t.append(input: 0, endOffset: 40, lineNumber: 4, settled: false)
        #expect([a1, a2, a3, b1, b2, a4] == [0, 1, 2, 3, 4, 5])
        #expect(t.watermark == 0)
        #expect(t.positions.isEmpty)

        // Settling out of order moves nothing until the oldest line settles.
        #expect(t.settle(b1) == 1)
        #expect(t.settle(a3) == 0)
        #expect(t.watermark == 0)
        #expect(t.settle(b1) == nil, "already settled")
        #expect(t.entry(a4)?.lineNumber == 4)
        #expect(t.entry(a4)?.settled == false)

        // The oldest settles: everything up to the still-open a4 passes, per input.
        #expect(t.settle(a1) == 0)
        #expect(t.watermark == 5)
        #expect(t.outstanding == 1)
        #expect(t.positions[0] == .init(offset: 30, lineNumber: 3))
        #expect(t.positions[1] == .init(offset: 9, lineNumber: 2))
        #expect(t.settle(a1) == nil, "behind the watermark")

        #expect(t.settle(a4) == 0)
        #expect(t.watermark == 6)
        #expect(t.outstanding == 0)
        #expect(t.positions[0] == .init(offset: 40, lineNumber: 4))
        #expect(t.settle(99) == nil, "unknown")
    }
}
