/// MurmurHash3's x64 128-bit variant (Austin Appleby's public-domain algorithm), the hash the
/// derived messageIds are made from: fast, and the same in every language that has it (for
/// example Python's `mmh3.hash128(bytes, seed, x64arch=True)` or Guava's `murmur3_128`).
package enum Murmur3 {
    private static let c1: UInt64 = 0x87c3_7b91_1142_53d5
    private static let c2: UInt64 = 0x4cf5_ad43_2745_937f

    /// The 128-bit hash of `bytes` with `seed`, as its two 64-bit halves (h1, h2).
    package static func hash128(_ bytes: UnsafeRawBufferPointer, seed: UInt32) -> (UInt64, UInt64) {
        var h1 = UInt64(seed)
        var h2 = UInt64(seed)
        let n = bytes.count
        let blocks = n / 16
        if let raw = bytes.baseAddress {
            for i in 0..<blocks {
                // Block i is bytes 16i..<16i+16, inside the buffer (i < n / 16); loadUnaligned
                // because byte buffers have no alignment, and the words are little-endian by the
                // algorithm's definition.
                var k1 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16, as: UInt64.self))
                var k2 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16 + 8, as: UInt64.self))
                k1 = (k1 &* c1).rotatedLeft(31) &* c2
                h1 ^= k1
                h1 = (h1.rotatedLeft(27) &+ h2) &* 5 &+ 0x52dc_e729
                k2 = (k2 &* c2).rotatedLeft(33) &* c1
                h2 ^= k2
                h2 = (h2.rotatedLeft(31) &+ h1) &* 5 &+ 0x3849_5ab5
            }
        }
        var k1: UInt64 = 0
        var k2: UInt64 = 0
        let tail = blocks * 16
        let rest = n - tail
        if rest > 8 {
            for j in stride(from: rest - 1, through: 8, by: -1) { k2 ^= UInt64(bytes[tail + j]) << UInt64((j - 8) * 8) }
            k2 = (k2 &* c2).rotatedLeft(33) &* c1
            h2 ^= k2
        }
        if rest > 0 {
            for j in stride(from: min(rest, 8) - 1, through: 0, by: -1) { k1 ^= UInt64(bytes[tail + j]) << UInt64(j * 8) }
            k1 = (k1 &* c1).rotatedLeft(31) &* c2
            h1 ^= k1
        }
        h1 ^= UInt64(n)
        h2 ^= UInt64(n)
        h1 &+= h2
        h2 &+= h1
        h1 = fmix(h1)
        h2 = fmix(h2)
        h1 &+= h2
        h2 &+= h1
        return (h1, h2)
    }

    @inline(__always)
    private static func fmix(_ k: UInt64) -> UInt64 {
        var k = k
        k ^= k >> 33
        k &*= 0xff51_afd7_ed55_8ccd
        k ^= k >> 33
        k &*= 0xc4ce_b9fe_1a85_ec53
        k ^= k >> 33
        return k
    }
}

extension UInt64 {
    @inline(__always)
    fileprivate func rotatedLeft(_ r: UInt64) -> UInt64 { (self << r) | (self >> (64 - r)) }
}
