@_spi(PerLine) import MetaRouter
import Testing

@_spi(PerLine) @testable import MetaRouterDelivery

/// The words the identity maps compare and sort ids by.
struct ByteWordsTests {
    /// The first 16 bytes of `bytes`, zero-padded, as two words loaded from memory: what
    /// `first16` must return, made byte by byte.
    static func reference(_ bytes: [UInt8]) -> (UInt64, UInt64) {
        var padded = [UInt8](repeating: 0, count: 16)
        for (i, b) in bytes.prefix(16).enumerated() { padded[i] = b }
        return padded.withUnsafeBytes { ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
    }

    @Test(arguments: 0...24)
    func first16IsTheZeroPaddedHeadForEveryLength(length: Int) {
        // Bytes that differ at every position, none zero, so a byte read from the wrong place
        // or a padding byte left unzeroed changes the words.
        let bytes = (0..<length).map { UInt8(truncatingIfNeeded: 0xA1 &+ 37 &* $0) }
        let words = bytes.withUnsafeBufferPointer { ByteWords.first16($0) }
        let expected = Self.reference(bytes)
        #expect(words.0 == expected.0 && words.1 == expected.1)
    }
}
