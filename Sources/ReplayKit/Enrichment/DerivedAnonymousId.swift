import Crypto
@_spi(PerLine) import MetaRouter

/// The anonymousId mr-replay gives a line that has a `userId` and no `anonymousId`
/// (`enrichment.identity.user_lines: derived`): a name-based UUID, version 5 (RFC 9562, SHA-1),
/// of the userId's UTF-8 bytes under the fixed namespace ``namespaceWords``, in lowercase.
///
/// It depends on the userId alone, so the same user gets the same anonymousId in every run,
/// shard and state directory, and two different userIds never share one. Any UUID library
/// computes the same value, e.g. Python's `uuid.uuid5(uuid.UUID("<namespace>"), user_id)`.
enum DerivedAnonymousId {
    /// The namespace UUID: `9d3b1f52-6c1e-4f8a-a7d2-3e5b8c0f4a61`, as two big-endian words (a
    /// computed literal, so reading it needs no lazily initialized global).
    @inline(__always)
    static var namespaceWords: (UInt64, UInt64) { (0x9D3B_1F52_6C1E_4F8A, 0xA7D2_3E5B_8C0F_4A61) }

    /// The number of bytes of a derived anonymousId's text.
    static let textCount = 36

    /// Writes the 36 bytes of the derived anonymousId's text of `userId` (its bytes as they
    /// appear in the event, unescaped) at `out`, which must have room for them. Called through a
    /// ``DerivedIdBuffer``.
    ///
    /// The namespace and the userId are hashed as one buffer, in one call: each call into the
    /// hasher costs more than hashing these few bytes does.
    static func write(userId: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) {
        let digest = withUnsafeTemporaryAllocation(byteCount: 16 + userId.count, alignment: 1) { name in
            // `name` has room for the namespace's 16 bytes and then the userId's bytes; both
            // writes are raw byte copies, and the hash reads exactly the bytes written.
            name.storeBytes(of: namespaceWords.0.bigEndian, toByteOffset: 0, as: UInt64.self)
            name.storeBytes(of: namespaceWords.1.bigEndian, toByteOffset: 8, as: UInt64.self)
            if userId.count > 0 { (name.baseAddress! + 16).copyMemory(from: userId.baseAddress!, byteCount: userId.count) }
            var hasher = Insecure.SHA1()
            hasher.update(bufferPointer: UnsafeRawBufferPointer(name))
            return hasher.finalize()
        }
        digest.withUnsafeBytes { d in
            // A SHA-1 digest has 20 bytes, so the two 8-byte reads stay inside it (unaligned:
            // the digest's bytes have no alignment to rely on).
            var first = UInt64(littleEndian: d.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
            var second = UInt64(littleEndian: d.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            first = first & ~(0xF0 << 48) | (0x50 << 48)  // byte 6: version 5
            second = second & ~0xC0 | 0x80  // byte 8: the RFC 9562 variant
            writeText(first, second, to: out)
        }
    }

    /// Writes the text of the UUID whose 16 bytes are `first` and `second` (each little-endian:
    /// its lowest byte first) at `out` (36 bytes): the hex digits of bytes 0-3, 4-5, 6-7, 8-9 and
    /// 10-15, with a dash between groups. Four bytes at a time (``hexDigits(_:)``).
    @inline(__always)
    private static func writeText(_ first: UInt64, _ second: UInt64, to out: UnsafeMutablePointer<UInt8>) {
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
    @inline(__always)
    static func hexDigits(_ x: UInt32) -> UInt64 {
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
