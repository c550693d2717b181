import JSONCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading values out of a validated record without decoding more than needed.
enum RecordText {
    /// The content of the JSON string at `value` (its bytes between the quotes) when it holds no
    /// escapes; nil for an escaped string.
    @inline(__always)
    static func plainContent(_ buffer: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> Range<Int>? {
        let inner = (value.lowerBound + 1)..<(value.upperBound - 1)
        for p in inner where buffer[p] == UInt8(ascii: "\\") { return nil }
        return inner
    }

    /// Whether the JSON string at `value` is exactly `text`.
    @inline(__always)
    static func equals(_ buffer: UnsafeBufferPointer<UInt8>, _ value: Range<Int>, _ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        if value.count == n + 2 {
            // `value` holds n + 2 bytes of `buffer` (its quotes around n bytes); `utf8Start`
            // points at the literal's n bytes.
            if memcmp(buffer.baseAddress! + value.lowerBound + 1, text.utf8Start, n) == 0 { return true }
            return plainContent(buffer, value) == nil && decodedEquals(buffer, value, UnsafeBufferPointer(start: text.utf8Start, count: n))
        }
        // Only an escaped string can be longer than its text and still equal it.
        return value.count > n + 2 && plainContent(buffer, value) == nil
            && decodedEquals(buffer, value, UnsafeBufferPointer(start: text.utf8Start, count: n))
    }

    /// Whether `member`'s key is `name`.
    @inline(__always)
    static func keyIs(_ buffer: UnsafeBufferPointer<UInt8>, _ member: MemberRef, _ name: StaticString) -> Bool {
        let n = name.utf8CodeUnitCount
        if !member.keyHasEscapes {
            // The key's content holds n bytes of `buffer` when the counts agree; `utf8Start`
            // points at the literal's n bytes.
            return member.key.count == n && memcmp(buffer.baseAddress! + member.key.lowerBound, name.utf8Start, n) == 0
        }
        return equals(buffer, member.quotedKey, name)
    }

    /// Whether the escaped JSON string at `value` decodes to `want`.
    private static func decodedEquals(_ buffer: UnsafeBufferPointer<UInt8>, _ value: Range<Int>, _ want: UnsafeBufferPointer<UInt8>) -> Bool {
        var decoded = JSONLayoutValues.stringContent(buffer, value)
        return decoded.withUTF8 { $0.elementsEqual(want) }
    }

    /// Whether the JSON string at `value` starts with `prefix` (compared on its raw bytes, so
    /// a prefix that would need escaping never matches).
    static func hasPrefix(_ buffer: UnsafeBufferPointer<UInt8>, _ value: Range<Int>, _ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard value.count >= n + 2 else { return false }
        // `utf8Start` points at the literal's n bytes; the range holds at least n content bytes.
        let want = UnsafeBufferPointer(start: prefix.utf8Start, count: n)
        return UnsafeBufferPointer(rebasing: buffer[(value.lowerBound + 1)..<(value.lowerBound + 1 + n)]).elementsEqual(want)
    }

    /// The decoded text of the JSON string at `value` (for error messages and rare paths).
    static func string(_ buffer: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> String {
        JSONLayoutValues.stringContent(buffer, value)
    }

    /// Whether two JSON values are the same bytes.
    static func sameBytes(_ buffer: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ b: Range<Int>) -> Bool {
        a.count == b.count && UnsafeBufferPointer(rebasing: buffer[a]).elementsEqual(UnsafeBufferPointer(rebasing: buffer[b]))
    }

    /// The integer written in `bytes` (optional `-`, then digits only); nil for anything else or
    /// a value outside Int64.
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var k = 0
        var negative = false
        if k < bytes.count, bytes[k] == UInt8(ascii: "-") {
            negative = true
            k += 1
        }
        guard k < bytes.count else { return nil }
        var v: Int64 = 0
        while k < bytes.count {
            let d = bytes[k] &- 0x30
            guard d < 10 else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(d))
            guard !o1, !o2 else { return nil }
            v = s
            k += 1
        }
        return negative ? -v : v
    }

    /// A decimal number (`123`, `-4.56`, no exponent) scaled by 10^`scale` and truncated toward
    /// zero: seconds with `scale` 3 give milliseconds. nil when it is not such a number.
    static func scaledDecimal(_ bytes: UnsafeBufferPointer<UInt8>, scale: Int) -> Int64? {
        var dot = bytes.count
        for k in 0..<bytes.count where bytes[k] == UInt8(ascii: ".") {
            dot = k
            break
        }
        guard let whole = integer(UnsafeBufferPointer(rebasing: bytes[..<dot])) else { return nil }
        var fraction: Int64 = 0
        var digits = 0
        if dot < bytes.count {
            guard dot + 1 < bytes.count else { return nil }
            for k in (dot + 1)..<bytes.count {
                let d = bytes[k] &- 0x30
                guard d < 10 else { return nil }
                if digits < scale {
                    fraction = fraction * 10 + Int64(d)
                    digits += 1
                }
            }
        }
        while digits < scale {
            fraction *= 10
            digits += 1
        }
        var p: Int64 = 1
        for _ in 0..<scale { p *= 10 }
        let (m, o1) = whole.multipliedReportingOverflow(by: p)
        let negative = bytes.first == UInt8(ascii: "-")
        let (s, o2) = negative ? m.subtractingReportingOverflow(fraction) : m.addingReportingOverflow(fraction)
        guard !o1, !o2 else { return nil }
        return s
    }
}
