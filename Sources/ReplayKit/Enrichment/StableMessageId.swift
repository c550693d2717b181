/// Stable messageIds for events that have none: `<epochMillis>-<uuid>`.
///
/// The uuid is a 128-bit hash of ONLY the line's bytes and its line number, so the same file
/// gives the same ids in every run, after any resume, from any directory, compressed or not.
/// It is formatted as an RFC 9562 version-8 (custom) UUID in lowercase.
enum StableMessageId {
    /// What a messageId is made of: the event's time and the uuid's two halves (version and
    /// variant bits already set).
    struct Parts {
        let millis: Int64
        let a: UInt64
        let b: UInt64
    }

    /// The longest quoted messageId: quotes, a sign and 19 digits, `-`, and 36 uuid characters.
    static let maximumQuotedLength = 2 + 20 + 1 + 36

    /// The parts of the messageId for a line.
    static func parts(line: UnsafeBufferPointer<UInt8>, lineNumber: Int, millis: Int64) -> Parts {
        let (a, b) = hash128(line, seed: UInt64(bitPattern: Int64(lineNumber)))
        // Version 8 in the high nibble of byte 6, variant 10 in byte 8.
        return Parts(
            millis: millis, a: (a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_8000,
            b: (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000)
    }

    /// Appends the messageId as a JSON string (with its quotes), straight into bytes: the hot
    /// path writes it into the event without making a String or an array first.
    static func append(_ id: Parts, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendDecimal(id.millis, to: &out)
        out.append(UInt8(ascii: "-"))
        appendUUID(id.a, id.b, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// The messageId for a line as a JSON string (with its quotes).
    static func quoted(line: UnsafeBufferPointer<UInt8>, lineNumber: Int, millis: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(maximumQuotedLength)
        append(parts(line: line, lineNumber: lineNumber, millis: millis), to: &out)
        return out
    }

    /// Appends `value` in decimal, as `"\(value)"` would print it.
    static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var m = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 digits
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[n] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
                n += 1
            } while m > 0
            for i in stride(from: n - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }

    /// Appends the lowercase 8-4-4-4-12 form of two 64-bit halves.
    static func appendUUID(_ a: UInt64, _ b: UInt64, to out: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        let digits = hex.utf8Start
        for index in 0..<16 {
            let half = index < 8 ? a : b
            let byte = UInt8(truncatingIfNeeded: half >> UInt64(56 - 8 * (index & 7)))
            if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
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
        let tail = ByteWords.tail(bytes, from: i)
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
