import JSONCore
import Testing

/// `Array.appendBytes(upTo:_:)` and `ByteCursor`: the array gains exactly the bytes written.
struct ByteCursorTests {
    @Test func theArrayGainsExactlyTheBytesWritten() {
        var out: [UInt8] = Array("ab".utf8)
        let tail: [UInt8] = Array("xyz".utf8)
        out.appendBytes(upTo: 10) { cursor in
            cursor.write(UInt8(ascii: "{"))
            tail.withUnsafeBufferPointer { cursor.write($0) }
            cursor.write([UInt8(ascii: "}")])
        }
        #expect(out == Array("ab{xyz}".utf8))
    }

    @Test func writingNothingLeavesTheArrayAsItWas() {
        var out: [UInt8] = [1, 2, 3]
        out.appendBytes(upTo: 64) { _ in }
        out.appendBytes(upTo: 0) { $0.write(9) }
        #expect(out == [1, 2, 3])
    }

    @Test func roomLargerThanTheZeroBlockIsFilledInBlocks() {
        var out: [UInt8] = []
        let big = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        out.appendBytes(upTo: 200_000) { cursor in big.withUnsafeBufferPointer { cursor.write($0) } }
        #expect(out == big)
    }
}
