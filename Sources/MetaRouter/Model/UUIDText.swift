/// The lowercase 8-4-4-4-12 text of a UUID, written eight digits at a time: the one writer of
/// generated messageIds (``MessageID``) and of mr-replay's derived anonymousIds.
package enum UUIDText {
    /// The number of bytes of the text.
    package static let count = 36

    /// Writes the text of the UUID whose 16 bytes are `first` and `second` (each little-endian:
    /// its lowest byte is the UUID's first of the eight) at `out`, which must have room for
    /// ``count`` bytes: the hex digits of bytes 0-3, 4-5, 6-7, 8-9 and 10-15, with a dash between
    /// groups. Four bytes at a time (``hexDigits(_:)``).
    @inlinable @inline(__always)
    package static func write(_ first: UInt64, _ second: UInt64, to out: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeMutableRawPointer(out)
        // Every store is inside the 36 bytes the caller promises: 8 bytes at 0, 9+4 (the low
        // half of a word: bytes 4-5 of the UUID), 14+4, 19+4, 24+4 and 28+8; unaligned stores of
        // UInt8 memory, which is trivial.
        let a = hexDigits(UInt32(truncatingIfNeeded: first))
        let b = hexDigits(UInt32(truncatingIfNeeded: first >> 32))
        let c = hexDigits(UInt32(truncatingIfNeeded: second))
        let d = hexDigits(UInt32(truncatingIfNeeded: second >> 32))
        // `.littleEndian`: a word's lowest byte is its first digit, so it is stored first.
        raw.storeBytes(of: a.littleEndian, toByteOffset: 0, as: UInt64.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: b).littleEndian, toByteOffset: 9, as: UInt32.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: b >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: c).littleEndian, toByteOffset: 19, as: UInt32.self)
        raw.storeBytes(of: UInt32(truncatingIfNeeded: c >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
        raw.storeBytes(of: d.littleEndian, toByteOffset: 28, as: UInt64.self)
        out[8] = UInt8(ascii: "-")
        out[13] = UInt8(ascii: "-")
        out[18] = UInt8(ascii: "-")
        out[23] = UInt8(ascii: "-")
    }

    /// The 8 lowercase hex digits of the 4 bytes of `x` (lowest byte first), as a word whose
    /// bytes, lowest first, are the digits in order: each byte's high digit, then its low one.
    @inlinable @inline(__always)
    package static func hexDigits(_ x: UInt32) -> UInt64 {
        // Each byte into a 16-bit lane of its own, then each nibble into a byte: the high
        // nibble first (the lane's low byte), the low nibble after it.
        var w = UInt64(x)
        w = (w | w << 16) & 0x0000_FFFF_0000_FFFF
        w = (w | w << 8) & 0x00FF_00FF_00FF_00FF
        let nibbles = (w >> 4) & 0x000F_000F_000F_000F | (w & 0x000F_000F_000F_000F) << 8
        // A nibble of 10 or more carries into bit 4 when 6 is added (no byte overflows: 15 + 6
        // < 256), and its digit is 'a' - 10 = '0' + 39 above the nibble.
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 39
    }
}
