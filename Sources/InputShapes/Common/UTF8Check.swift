/// Checks that bytes are well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
/// above U+10FFFF), so that cells copied into JSON strings keep the output valid JSON.
enum UTF8Check {
    /// Whether `bytes` is well-formed UTF-8.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = bytes.count
        var i = 0
        while i < n {
            // ASCII runs, eight bytes at a time.
            if n - i >= 8, let base = bytes.baseAddress {
                // `n - i >= 8` keeps the 8-byte read inside the buffer; loadUnaligned, because a
                // byte buffer has no alignment.
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                    continue
                }
            }
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            guard let length = sequenceLength(bytes, at: i) else { return false }
            i += length
        }
        return true
    }

    /// The length of the multi-byte sequence starting at `i` (first byte >= 0x80), or nil when
    /// it is not well-formed.
    private static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Int? {
        let b0 = bytes[i]
        func cont(_ k: Int) -> UInt8? {
            guard i + k < bytes.count else { return nil }
            let b = bytes[i + k]
            return b & 0xC0 == 0x80 ? b : nil
        }
        switch b0 {
        case 0xC2...0xDF:
            return cont(1) == nil ? nil : 2
        case 0xE0...0xEF:
            guard let b1 = cont(1), cont(2) != nil else { return nil }
            if b0 == 0xE0 && b1 < 0xA0 { return nil }  // overlong
            if b0 == 0xED && b1 >= 0xA0 { return nil }  // surrogate
            return 3
        case 0xF0...0xF4:
            guard let b1 = cont(1), cont(2) != nil, cont(3) != nil else { return nil }
            if b0 == 0xF0 && b1 < 0x90 { return nil }  // overlong
            if b0 == 0xF4 && b1 >= 0x90 { return nil }  // above U+10FFFF
            return 4
        default:
            return nil
        }
    }
}
