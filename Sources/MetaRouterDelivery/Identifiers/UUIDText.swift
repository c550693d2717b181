/// The 8-4-4-4-12 text of a UUID, written and read eight digits at a time: the one writer of
/// generated messageIds (``MessageID``) and of mr-replay's derived anonymousIds, and the reader
/// that lets mr-replay's identity tables keep a UUID id in 16 bytes.
package enum UUIDText {
    /// The number of bytes of the text (computed, so that reading it costs no lazy-global check).
    @inlinable @inline(__always) package static var count: Int { 36 }

    /// Writes the text of the UUID whose 16 bytes are `first` and `second` (each little-endian:
    /// its lowest byte is the UUID's first of the eight) at `out`, which must have room for
    /// ``count`` bytes: the hex digits of bytes 0-3, 4-5, 6-7, 8-9 and 10-15, with a dash between
    /// groups. Four bytes at a time (``hexDigits(_:)``).
    /// With `uppercase`, the letters are `A` to `F` (as ``parse(_:)`` reads an uppercase text).
    @inlinable @inline(__always)
    package static func write(_ first: UInt64, _ second: UInt64, to out: UnsafeMutablePointer<UInt8>, uppercase: Bool = false) {
        let raw = UnsafeMutableRawPointer(out)
        // Every store is inside the 36 bytes the caller promises: 8 bytes at 0, 9+4 (the low
        // half of a word: bytes 4-5 of the UUID), 14+4, 19+4, 24+4 and 28+8; unaligned stores of
        // UInt8 memory, which is trivial.
        @inline(__always) func digits(_ x: UInt64) -> UInt64 {
            let lower = hexDigits(UInt32(truncatingIfNeeded: x))
            return uppercase ? uppercased(lower) : lower
        }
        let a = digits(first)
        let b = digits(first >> 32)
        let c = digits(second)
        let d = digits(second >> 32)
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

    /// `digits` (a word of ``hexDigits(_:)``) with its letters uppercase: a byte of `a` to `f`
    /// is the only one that reaches 0x80 when 0x1F is added (no byte carries: 0x66 + 0x1F <
    /// 0x100), and it loses 0x20.
    @inlinable @inline(__always)
    package static func uppercased(_ digits: UInt64) -> UInt64 {
        digits &- ((digits &+ 0x1F1F_1F1F_1F1F_1F1F) & 0x8080_8080_8080_8080) >> 2
    }

    /// The UUID whose text is the ``count`` bytes at `text`, as ``write(_:_:to:uppercase:)``
    /// takes it, and whether its letters are uppercase; nil unless the bytes are a UUID's text
    /// (``read(_:)``) with letters all of one case (so that writing it back gives exactly these
    /// bytes). A text without letters reads as lowercase.
    @inlinable
    package static func parse(_ text: UnsafePointer<UInt8>) -> (first: UInt64, second: UInt64, uppercase: Bool)? {
        guard let uuid = read(text), !(uuid.hasLowercase && uuid.hasUppercase) else { return nil }
        return (uuid.first, uuid.second, uuid.hasUppercase)
    }

    /// The UUID whose text is the ``count`` bytes at `text`, letters in either case, and which
    /// cases its letters are in; nil unless the bytes are hex digits in groups of 8, 4, 4, 4 and
    /// 12 with a dash between groups.
    @inlinable
    package static func read(_ text: UnsafePointer<UInt8>) -> (first: UInt64, second: UInt64, hasLowercase: Bool, hasUppercase: Bool)? {
        guard text[8] == UInt8(ascii: "-"), text[13] == UInt8(ascii: "-"), text[18] == UInt8(ascii: "-"),
            text[23] == UInt8(ascii: "-")
        else { return nil }
        let raw = UnsafeRawPointer(text)
        // Every load is inside the 36 bytes the caller promises (the places `write` stores to);
        // unaligned loads of UInt8 memory. `littleEndian`: a word's lowest byte is its first.
        @inline(__always) func word(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        @inline(__always) func half(_ at: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
        }
        let words = (word(0), half(9) | half(14) << 32, half(19) | half(24) << 32, word(28))
        guard let a = HexWord(words.0), let b = HexWord(words.1), let c = HexWord(words.2), let d = HexWord(words.3) else {
            return nil
        }
        let lower = a.lower | b.lower | c.lower | d.lower
        let upper = a.upper | b.upper | c.upper | d.upper
        return (a.value | b.value << 32, c.value | d.value << 32, lower != 0, upper != 0)
    }
}

/// Eight hex digits read at once (a word of ``UUIDText/hexDigits(_:)``'s form).
@usableFromInline
struct HexWord {
    /// The four bytes the digits spell, lowest first.
    @usableFromInline let value: UInt64
    /// The high bit of each byte that is a lowercase letter, and of each that is an uppercase one.
    @usableFromInline let lower: UInt64
    @usableFromInline let upper: UInt64

    /// Reads `digits`; nil when a byte is not a hex digit.
    @inlinable @inline(__always)
    init?(_ digits: UInt64) {
        let high: UInt64 = 0x8080_8080_8080_8080
        guard digits & high == 0 else { return nil }
        // For bytes under 0x80, adding 0x80 - lo sets a byte's high bit when it is >= lo, and
        // adding 0x7F - hi when it is > hi; neither sum carries out of its byte.
        @inline(__always) func within(_ lo: UInt64, _ hi: UInt64) -> UInt64 {
            let ones: UInt64 = 0x0101_0101_0101_0101
            return (digits &+ (0x80 - lo) &* ones) & ~(digits &+ (0x7F - hi) &* ones) & high
        }
        let decimal = within(0x30, 0x39)
        lower = within(0x61, 0x66)
        upper = within(0x41, 0x46)
        guard decimal | lower | upper == high else { return nil }
        // A digit's value is its low nibble; a letter's is its low nibble + 9 (`a` is 0x61).
        let nibbles = (digits & 0x0F0F_0F0F_0F0F_0F0F) &+ ((lower | upper) >> 7) &* 9
        // Each pair of nibbles (high first) into one byte, then the bytes together.
        var v = (nibbles & 0x000F_000F_000F_000F) << 4 | (nibbles >> 8) & 0x000F_000F_000F_000F
        v = (v | v >> 8) & 0x0000_FFFF_0000_FFFF
        value = (v | v >> 16) & 0xFFFF_FFFF
    }
}
