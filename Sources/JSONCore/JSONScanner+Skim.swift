/// Skimming: finding an object's top-level members without validating the values.
///
/// A skim finds the same members, with the same key and value ranges and kinds, as
/// ``JSONScanner/scanMembers(_:into:)`` does for every valid JSON object; it is several times
/// cheaper because nested objects and arrays are jumped over by their brackets and strings by
/// their closing quote, without looking at what is inside. On invalid JSON it may succeed or fail,
/// but never reads outside the buffer. Top-level strings that hold escapes are validated (so their
/// content can be decoded safely); nothing else is.
extension JSONScanner {
    /// Skims an object at the current offset (which must be `{`), appends its members to
    /// `members` and returns the object's range; nil when the bytes are not shaped like an object.
    mutating func skimMembers(into members: inout [JSONMember]) -> Range<Int>? {
        let open = i
        i += 1
        skipWhitespace()
        if i < end, base[i] == UInt8(ascii: "}") {
            i += 1
            return open..<i
        }
        while true {
            guard i < end, base[i] == UInt8(ascii: "\""), let (key, esc) = skimString() else { return nil }
            skipWhitespace()
            guard i < end, base[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipWhitespace()
            let valueStart = i
            guard let kind = skimValue() else { return nil }
            members.append(
                JSONMember(span: (key.lowerBound - 1)..<i, key: key, keyHasEscapes: esc, value: valueStart..<i, kind: kind))
            skipWhitespace()
            guard i < end else { return nil }
            if base[i] == UInt8(ascii: ",") {
                i += 1
                skipWhitespace()
            } else if base[i] == UInt8(ascii: "}") {
                i += 1
                return open..<i
            } else {
                return nil
            }
        }
    }

    /// Skims one value at the current offset; its kind, or nil when it is not shaped like one.
    @inline(__always)
    mutating func skimValue() -> JSONKind? {
        guard i < end else { return nil }
        switch base[i] {
        case UInt8(ascii: "\""): return skimString() == nil ? nil : .string
        case UInt8(ascii: "{"): return skipContainer() ? .object : nil
        case UInt8(ascii: "["): return skipContainer() ? .array : nil
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return skipScalar() ? .bool : nil
        case UInt8(ascii: "n"): return skipScalar() ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return skipScalar() ? .number : nil
        default: return nil
        }
    }

    /// Skips a string at the current offset (which must be `"`) and returns its content's range
    /// and whether it holds escapes. A string with escapes is validated with ``scanString()``.
    @inline(__always)
    mutating func skimString() -> (content: Range<Int>, hasEscapes: Bool)? {
        let open = i
        guard let close = closingQuote(from: open + 1) else { return nil }
        guard close.escaped else {
            i = close.at + 1
            return ((open + 1)..<close.at, false)
        }
        i = open
        return try? scanString()
    }

    /// The position of the quote that closes a string whose content starts at `start`, and
    /// whether a backslash came before it; nil when the buffer ends first.
    @inline(__always)
    func closingQuote(from start: Int) -> (at: Int, escaped: Bool)? {
        var p = start
        var escaped = false
        while true {
            p = skipUnquotedBytes(from: p)
            guard p < end else { return nil }
            if base[p] == UInt8(ascii: "\"") { return (p, escaped) }
            if base[p] == UInt8(ascii: "\\") {
                escaped = true
                p += 2  // the escaped byte is never the closing quote
            } else {
                p += 1
            }
        }
    }

    /// Jumps over an object or array at the current offset by counting its brackets (strings
    /// inside are jumped over by their quotes); false when the buffer ends first.
    mutating func skipContainer() -> Bool {
        var depth = 0
        var p = i
        while p < end {
            p = skipStructuralFree(from: p)
            guard p < end else { return false }
            switch base[p] {
            case UInt8(ascii: "\""):
                guard let close = closingQuote(from: p + 1) else { return false }
                p = close.at + 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                p += 1
            default:  // `}` or `]`
                depth -= 1
                p += 1
                if depth == 0 {
                    i = p
                    return true
                }
            }
        }
        return false
    }

    /// Skips a number or literal: every byte up to the next `,`, `}`, `]` or whitespace.
    @inline(__always)
    mutating func skipScalar() -> Bool {
        let start = i
        while i < end {
            let c = base[i]
            if c == UInt8(ascii: ",") || c == UInt8(ascii: "}") || c == UInt8(ascii: "]") || c.isJSONWhitespace {
                break
            }
            i += 1
        }
        return i > start
    }

    /// The first position at or after `start` holding `"` or `\\` (or a position near the end
    /// of the buffer; callers finish byte by byte). Eight bytes at a time: a lane is flagged
    /// when its byte equals one of the two; borrows only run upward from a truly flagged lane,
    /// so the lowest flagged lane is exact.
    @inline(__always)
    func skipUnquotedBytes(from start: Int) -> Int {
        var p = start
        #if _endian(little)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while end - p >= 8 {
                // `base + p` stays in the buffer and `end - p >= 8` keeps the 8-byte read inside
                // it; loadUnaligned, because a byte buffer has no alignment to rely on.
                let x = UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self)
                let quote = x ^ (ones &* 0x22)
                let backslash = x ^ (ones &* 0x5C)
                let flagged = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
                if flagged != 0 { return p + flagged.trailingZeroBitCount >> 3 }
                p += 8
            }
        #endif
        while p < end, base[p] != UInt8(ascii: "\""), base[p] != UInt8(ascii: "\\") { p += 1 }
        return p
    }

    /// The first position at or after `start` holding `"`, `{`, `}`, `[` or `]` (or the end).
    /// Eight bytes at a time, as in ``skipUnquotedBytes(from:)``: `{`/`[` and `}`/`]` differ from
    /// each other only in bit 5 (0x7B/0x5B, 0x7D/0x5D), so clearing it folds five tests into three.
    @inline(__always)
    func skipStructuralFree(from start: Int) -> Int {
        var p = start
        #if _endian(little)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while end - p >= 8 {
                // In bounds as in skipUnquotedBytes: `end - p >= 8`.
                let x = UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self)
                let folded = x & ~(ones &* 0x20)
                let quote = x ^ (ones &* 0x22)
                let open = folded ^ (ones &* 0x5B)
                let close = folded ^ (ones &* 0x5D)
                let flagged = (((quote &- ones) & ~quote) | ((open &- ones) & ~open) | ((close &- ones) & ~close)) & highs
                if flagged != 0 { return p + flagged.trailingZeroBitCount >> 3 }
                p += 8
            }
        #endif
        while p < end {
            let c = base[p]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "{") || c == UInt8(ascii: "}") || c == UInt8(ascii: "[")
                || c == UInt8(ascii: "]")
            {
                return p
            }
            p += 1
        }
        return p
    }
}

/// Trusting skims: jumping over values by their brackets and quotes alone, validating nothing (not
/// even escapes), for bytes that were validated before, or whose shape is all a caller checks.
/// They never read outside the buffer. The request-body check, the collector's batch splitter and
/// the disk-queue snapshot reader walk JSON with these, and nothing else in the package does.
extension JSONScanner {
    /// Whether the byte at the current offset is `byte`; if it is, moves past it.
    @inline(__always)
    package mutating func consume(_ byte: UInt8) -> Bool {
        guard i < end, base[i] == byte else { return false }
        i += 1
        return true
    }

    /// Jumps over a string at the current offset (which must be `"`) and returns its content's
    /// range; nil when the buffer ends first.
    package mutating func skipStringTrusting() -> Range<Int>? {
        guard i < end, base[i] == UInt8(ascii: "\""), let close = closingQuote(from: i + 1) else { return nil }
        let content = (i + 1)..<close.at
        i = close.at + 1
        return content
    }

    /// Jumps over one value at the current offset; false at the end of the buffer, or when a
    /// string, object or array is not closed before it. Anything else is a scalar: the byte at the
    /// offset and every byte after it up to the next `,`, `}`, `]` or whitespace (or the end).
    package mutating func skipValueTrusting() -> Bool {
        guard i < end else { return false }
        switch base[i] {
        case UInt8(ascii: "\""): return skipStringTrusting() != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["): return skipContainer()
        default:
            i += 1
            _ = skipScalar()
            return true
        }
    }

    /// Jumps over the array at the current offset (which must be `[`), handing `element` the
    /// range of each element (from its first to its last byte, whitespace around it left out).
    /// A comma before the `]` is let pass. False when two elements have no comma between them,
    /// or the array is not closed before the buffer ends.
    package mutating func skipArrayTrusting(element: (Range<Int>) -> Void) -> Bool {
        guard consume(UInt8(ascii: "[")) else { return false }
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            let start = i
            guard skipValueTrusting() else { return false }
            element(start..<i)
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return true }
            guard consume(UInt8(ascii: ",")) else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return true }
        }
    }
}
