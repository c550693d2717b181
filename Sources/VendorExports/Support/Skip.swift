import JSONCore

/// Skipping over values of a validated record, eight bytes at a time: how ``ArrayItems`` and
/// ``ObjectMembers`` find where a value ends without looking at every byte. Every function
/// assumes that what it skips was accepted by a validating scan, so it ends inside the buffer.
enum Skip {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The high bit of every byte of `word` equal to `byte` (exact for the lowest such byte,
    /// which is all the callers use: borrows only run upward from a byte that matches).
    @inline(__always)
    private static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & highs
    }

    /// The eight bytes at `p`, little-endian (so byte k of the text is bits 8k..<8k+8).
    @inline(__always)
    private static func word(_ buffer: UnsafeBufferPointer<UInt8>, _ p: Int) -> UInt64 {
        // Callers check `buffer.count - p >= 8`, so the read stays inside the buffer; a byte
        // buffer has no alignment, hence loadUnaligned.
        UInt64(littleEndian: UnsafeRawPointer(buffer.baseAddress! + p).loadUnaligned(as: UInt64.self))
    }

    /// One past the quote that closes the string opening at `start`, and whether it holds
    /// escapes.
    @inline(__always)
    static func string(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, escaped: Bool) {
        var p = start + 1
        var escaped = false
        while true {
            while buffer.count - p >= 8 {
                let w = word(buffer, p)
                let stops = matches(w, UInt8(ascii: "\"")) | matches(w, UInt8(ascii: "\\"))
                if stops != 0 {
                    p += stops.trailingZeroBitCount >> 3
                    break
                }
                p += 8
            }
            let c = buffer[p]
            if c == UInt8(ascii: "\"") { return (p + 1, escaped) }
            if c == UInt8(ascii: "\\") {
                escaped = true
                p += 2  // the escaped byte never closes the string
            } else {
                p += 1
            }
        }
    }

    /// One past the bracket that closes the object or array opening at `start`.
    @inline(__always)
    static func container(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var depth = 0
        var p = start
        while true {
            while buffer.count - p >= 8 {
                let w = word(buffer, p)
                // `{`/`[` and `}`/`]` differ only in bit 5: folded, three tests find all five.
                let folded = w & ~(ones &* 0x20)
                let stops = matches(w, UInt8(ascii: "\"")) | matches(folded, UInt8(ascii: "[")) | matches(folded, UInt8(ascii: "]"))
                if stops != 0 {
                    p += stops.trailingZeroBitCount >> 3
                    break
                }
                p += 8
            }
            switch buffer[p] {
            case UInt8(ascii: "\""):
                // Most strings are short: when the first quote or backslash of the next eight
                // bytes is a quote, the string ends there (no call).
                let q = p + 1
                if buffer.count - q >= 8 {
                    let w = word(buffer, q)
                    let stops = matches(w, UInt8(ascii: "\"")) | matches(w, UInt8(ascii: "\\"))
                    if stops != 0 {
                        let at = q + stops.trailingZeroBitCount >> 3
                        if buffer[at] == UInt8(ascii: "\"") {
                            p = at + 1
                            continue
                        }
                    }
                }
                p = string(buffer, from: p).end
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                p += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                p += 1
                if depth == 0 { return p }
            default:
                p += 1
            }
        }
    }

    /// One past the last byte of the number or literal starting at `start` (it ends at `,`,
    /// `}`, `]`, whitespace or the end of `limit`).
    @inline(__always)
    static func scalar(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int) -> Int {
        var p = start
        while p < limit {
            let c = buffer[p]
            if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || c.isJSONWhitespace {
                break
            }
            p += 1
        }
        return p
    }

    /// The first position at or after `p` (before `limit`) that is not JSON whitespace.
    @inline(__always)
    static func whitespace(_ buffer: UnsafeBufferPointer<UInt8>, from p: Int, limit: Int) -> Int {
        var q = p
        while q < limit, buffer[q].isJSONWhitespace { q += 1 }
        return q
    }

    /// The kind of the value whose first byte is `c`.
    @inline(__always)
    static func kind(_ c: UInt8) -> JSONKind {
        switch c {
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return .number
        }
    }

    /// The value starting at `start` (not whitespace): its end and kind.
    @inline(__always)
    static func value(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int) -> ValueRef {
        switch buffer[start] {
        case UInt8(ascii: "\""): return ValueRef(range: start..<string(buffer, from: start).end, kind: .string)
        case UInt8(ascii: "{"): return ValueRef(range: start..<container(buffer, from: start), kind: .object)
        case UInt8(ascii: "["): return ValueRef(range: start..<container(buffer, from: start), kind: .array)
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return ValueRef(range: start..<scalar(buffer, from: start, limit: limit), kind: .bool)
        case UInt8(ascii: "n"): return ValueRef(range: start..<scalar(buffer, from: start, limit: limit), kind: .null)
        default: return ValueRef(range: start..<scalar(buffer, from: start, limit: limit), kind: .number)
        }
    }
}
