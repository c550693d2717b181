/// FNV-1a, 64 bit: a fast, stable, non-cryptographic hash. Unlike `Hasher` it gives the same value
/// in every process, so it can route identities to lanes and shards and fingerprint files.
@_spi(PerLine) public enum FNV1a {
    /// The hash of `bytes`.
    @inlinable
    public static func hash<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01B3
        }
        return h
    }

    /// The hash of `bytes` as 16 lowercase hex digits.
    public static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let s = String(hash(bytes), radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
