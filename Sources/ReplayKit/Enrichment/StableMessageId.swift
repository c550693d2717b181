/// Stable messageIds for events that have none: `<epochMillis>-<uuid>`.
///
/// The uuid is a 128-bit hash of ONLY the line's bytes and its line number, so the same file
/// gives the same ids in every run, after any resume, from any directory, compressed or not.
/// It is formatted as an RFC 9562 version-8 (custom) UUID in lowercase.
enum StableMessageId {
    /// The messageId for a line.
    static func make(line: UnsafeBufferPointer<UInt8>, lineNumber: Int, millis: Int64) -> String {
        var (a, b) = hash128(line, seed: UInt64(bitPattern: Int64(lineNumber)))
        // Version 8 in the high nibble of byte 6, variant 10 in byte 8.
        a = (a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_8000
        b = (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return "\(millis)-" + uuidString(a, b)
    }

    /// Lowercase 8-4-4-4-12 form of two 64-bit halves.
    static func uuidString(_ a: UInt64, _ b: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { out in
            let hex: StaticString = "0123456789abcdef"
            let digits = hex.utf8Start
            var pos = 0
            for index in 0..<16 {
                let half = index < 8 ? a : b
                let byte = UInt8(truncatingIfNeeded: half >> UInt64(56 - 8 * (index & 7)))
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    out[pos] = UInt8(ascii: "-")
                    pos += 1
                }
                out[pos] = digits[Int(byte >> 4)]
                out[pos + 1] = digits[Int(byte & 0xF)]
                pos += 2
            }
            return pos
        }
    }

    /// Two independent 64-bit multiply-mix hashes over 8-byte little-endian words.
    static func hash128(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> (UInt64, UInt64) {
        var h1: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ seed
        var h2: UInt64 = 0xC2B2_AE3D_27D4_EB4F ^ (seed &* 0x1656_67B1_9E37_79F9)
        let n = bytes.count
        var i = 0
        let raw = UnsafeRawBufferPointer(bytes)
        while i + 8 <= n {
            // Little-endian words on every platform, so ids do not depend on the machine.
            let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            h1 = mix(h1 ^ w) &+ 0x2545_F491_4F6C_DD1D
            h2 = mix(h2 &+ (w &* 0x9FB2_1C65_1E98_DF25)) ^ h1
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            tail |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        h1 = mix(h1 ^ tail ^ UInt64(n))
        h2 = mix(h2 ^ (tail &* 0xFF51_AFD7_ED55_8CCD) ^ UInt64(n) ^ h1)
        h1 = mix(h1 ^ h2)
        return (h1, h2)
    }

    @inline(__always) static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
