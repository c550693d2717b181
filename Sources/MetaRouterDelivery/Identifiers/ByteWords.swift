/// Reading bytes as little-endian 64-bit words, for the byte hashes of the replay hot path
/// (stable messageIds, the identity maps), and comparing bytes with a literal (keys, types,
/// placeholder ids).
@_spi(PerLine) public enum ByteWords {
    /// The first 16 bytes of `bytes` (fewer when there are fewer), zero-padded, as two words in
    /// memory order.
    ///
    /// Read with word loads, not a call to `memcpy`: ids are looked up by it once or more per line.
    @inlinable @inline(__always)
    public static func first16(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        let n = min(bytes.count, 16)
        guard n > 0, let source = bytes.baseAddress else { return (0, 0) }
        #if _endian(little)
            // Every load reads inside the n bytes: two overlapping words cover 8 to 16 bytes, and
            // the second is shifted down so that only bytes 8 ..< n remain (the first byte of
            // memory is a word's lowest on a little-endian machine).
            let raw = UnsafeRawPointer(source)
            guard n >= 8 else { return (tail(bytes, from: 0), 0) }
            let first = raw.loadUnaligned(as: UInt64.self)
            if n == 8 { return (first, 0) }
            return (first, raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) >> UInt64((16 - n) * 8))
        #else
            var w: (UInt64, UInt64) = (0, 0)
            // Raw bytes are copied into the tuple's own 16 bytes (n <= 16); no typed access to
            // either side, so no binding rule is involved.
            withUnsafeMutableBytes(of: &w) { $0.baseAddress!.copyMemory(from: source, byteCount: n) }
            return w
        #endif
    }

    /// Whether `bytes` are exactly the UTF-8 code units of `literal` (a key or keyword).
    @inlinable @inline(__always)
    public static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        // A literal's utf8Start points at its code units for the program's lifetime, and
        // `bytes` has as many, so every read stays inside both.
        let w = literal.utf8Start
        for k in 0..<bytes.count where bytes[k] != w[k] { return false }
        return true
    }

    /// The bytes from `start` to the end of `bytes` (at most 7), as a little-endian word.
    @inlinable @inline(__always)
    public static func tail(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> UInt64 {
        var word: UInt64 = 0
        var shift: UInt64 = 0
        var i = start
        while i < bytes.count {
            word |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        return word
    }
}
