import JSONCore

/// Finds where a JSON value that starts at the front of a buffer ends, without validating it
/// (``JSONArrayReader`` validates the value once it has all of it). It tracks strings, escapes
/// and the brackets that are open, so `]`, `,` and `}` inside strings do not count, and it can
/// stop at the end of the bytes it has and go on where it stopped when more arrive.
struct ElementBoundary {
    /// Bytes of the value already looked at.
    private(set) var scanned = 0
    /// Whether the scan is inside a string.
    private var inString = false
    /// Whether the previous byte in a string was a backslash that escapes this one.
    private var escaped = false
    /// The closing bracket each open container expects, innermost last.
    private var closers: [UInt8] = []

    /// Forgets the value scanned so far.
    mutating func reset() {
        scanned = 0
        inString = false
        escaped = false
        closers.removeAll(keepingCapacity: true)
    }

    /// Scans on in `bytes` (the value from its first byte; the same bytes as before and more).
    /// - Parameter atEnd: whether `bytes` reach the end of the file.
    /// - Returns: the value's length, or nil when it goes on past `bytes`.
    /// - Throws: a closing bracket that does not match (relative offset and message), or
    ///   nesting deeper than ``JSONScanner/maximumDepth``.
    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, atEnd: Bool) throws(JSONError) -> Int? {
        guard !bytes.isEmpty else { return nil }
        switch bytes[0] {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""):
            break
        default:
            return scalarEnd(bytes, atEnd: atEnd)
        }
        var i = scanned
        let n = bytes.count
        while i < n {
            if inString {
                i = stringStop(bytes, from: i)
                guard i < n else { break }
                if escaped {
                    escaped = false
                } else if bytes[i] == UInt8(ascii: "\\") {
                    escaped = true
                } else if bytes[i] == UInt8(ascii: "\"") {
                    inString = false
                    if closers.isEmpty { return i + 1 }
                }
                i += 1
                continue
            }
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard closers.count < JSONScanner.maximumDepth else {
                    throw JSONError(.tooDeep, at: i, "nesting deeper than \(JSONScanner.maximumDepth)")
                }
                closers.append(c + 2)  // `{` + 2 is `}`, `[` + 2 is `]`
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard closers.last == c else {
                    throw JSONError(.syntax, at: i, "unexpected '\(Character(Unicode.Scalar(c)))'")
                }
                closers.removeLast()
                if closers.isEmpty { return i + 1 }
            default:
                break
            }
            i += 1
        }
        scanned = i
        return nil
    }

    /// The end of a number or literal: the first byte that cannot continue it.
    private mutating func scalarEnd(_ bytes: UnsafeBufferPointer<UInt8>, atEnd: Bool) -> Int? {
        var i = scanned
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"),
                UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""), UInt8(ascii: ":"):
                return i
            default:
                i += 1
            }
        }
        scanned = i
        return atEnd ? i : nil
    }

    /// The first position at or after `start` that holds `"` or `\\`, or that follows a
    /// backslash (so it must be looked at); `bytes.count` when there is none.
    @inline(__always)
    private func stringStop(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        if escaped { return start }
        var i = start
        let n = bytes.count
        #if _endian(little)
            if let base = bytes.baseAddress {
                let ones: UInt64 = 0x0101_0101_0101_0101
                let highs: UInt64 = 0x8080_8080_8080_8080
                while n - i >= 8 {
                    // `n - i >= 8` keeps the 8-byte read inside the buffer; loadUnaligned,
                    // because a byte buffer has no alignment.
                    let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    let quote = x ^ (ones &* 0x22)
                    let backslash = x ^ (ones &* 0x5C)
                    // A lane is flagged when its byte is `"` or `\\` (the zero-byte test); borrows
                    // run only upwards from a truly flagged lane, so the lowest flag is exact.
                    let flagged = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
                    if flagged != 0 { return i + flagged.trailingZeroBitCount >> 3 }
                    i += 8
                }
            }
        #endif
        while i < n, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\") { i += 1 }
        return i
    }
}
