import CZlib

/// CRC-32 (the zip and gzip polynomial), computed by zlib.
enum CRC32 {
    /// `crc` carried on over `bytes` (start from 0).
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = UInt(crc)
        var rest = bytes
        while let base = rest.baseAddress, !rest.isEmpty {
            let n = min(rest.count, Int(UInt32.max))
            // zlib reads exactly `n` bytes from `base`, and `rest` holds at least `n`.
            crc = crc32(crc, base.assumingMemoryBound(to: Bytef.self), uInt(n))
            // The slice `n...` lies inside `rest` (n <= its count); the view is used only in
            // this loop, while the caller's buffer is valid.
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
