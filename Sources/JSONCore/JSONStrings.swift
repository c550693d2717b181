/// Decoding and encoding of JSON string contents.
public enum JSONStrings {
    /// Decodes the content of a validated JSON string (the bytes between the quotes).
    public static func decode(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, hasEscapes: Bool) -> String {
        let slice = UnsafeBufferPointer(rebasing: buffer[range])
        if !hasEscapes { return String(decoding: slice, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(slice.count)
        var k = 0
        let n = slice.count
        while k < n {
            let c = slice[k]
            guard c == UInt8(ascii: "\\"), k + 1 < n else {
                out.append(c)
                k += 1
                continue
            }
            let e = slice[k + 1]
            k += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex(slice, k)
                k += 4
                if scalar >= 0xD800 && scalar < 0xDC00, k + 6 <= n {
                    let low = hex(slice, k + 2)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    k += 6
                }
                appendUTF8(UnicodeScalar(scalar) ?? "\u{FFFD}", to: &out)
            default: out.append(e)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func hex(_ s: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        var v: UInt32 = 0
        for j in at..<min(at + 4, s.count) {
            let c = s[j]
            let d: UInt32 =
                c <= UInt8(ascii: "9") ? UInt32(c - 48) : UInt32((c | 0x20) - UInt8(ascii: "a") + 10)
            v = v << 4 | d
        }
        return v
    }

    static func appendUTF8(_ scalar: UnicodeScalar, to out: inout [UInt8]) {
        UTF8.encode(scalar) { out.append($0) }
    }

    /// Appends `string` as a quoted JSON string. Only `"`, `\` and control characters are
    /// escaped; all other characters are written as UTF-8.
    public static func appendQuoted(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = string
        s.withUTF8 { appendEscaped($0, to: &out) }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends already-UTF-8 bytes as a quoted JSON string (escaped as ``appendQuoted(_:to:)`` does).
    public static func appendQuotedBytes(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        appendEscaped(bytes, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Whether ``appendEscaped(_:to:)`` escapes byte `c`: a control character, `"` or `\\`.
    @inlinable
    public static func needsEscape(_ c: UInt8) -> Bool { c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") }

    /// Appends already-UTF-8 bytes with JSON escaping (no quotes).
    public static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var runStart = 0
        for k in 0..<bytes.count {
            let c = bytes[k]
            guard needsEscape(c) else { continue }
            if runStart < k { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<k])) }
            runStart = k + 1
            out.append(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""): out.append(c)
            case UInt8(ascii: "\\"): out.append(c)
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            default:
                let digits: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, digits[Int(c >> 4)], digits[Int(c & 0xF)]])
            }
        }
        if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }

    /// The length of `string`'s quoted encoding (what ``appendQuoted(_:to:)`` appends), in bytes.
    static func quotedCount(_ string: String) -> Int {
        var n = 2
        for c in string.utf8 {
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") {
                n += 1
            } else {
                // `\"`, `\\` and the short escapes take 2 bytes; other controls `\u00XX`, 6.
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09, 0x08, 0x0C: n += 2
                default: n += 6
                }
            }
        }
        return n
    }

    /// The quoted JSON encoding of `string`.
    public static func quoted(_ string: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count + 2)
        appendQuoted(string, to: &out)
        return out
    }
}
