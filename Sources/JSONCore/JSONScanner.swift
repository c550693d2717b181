/// The kind of a scanned JSON value.
public enum JSONKind: UInt8, Sendable, Equatable {
    case null, bool, number, string, array, object
}

/// A single-pass, validating JSON scanner over raw bytes.
///
/// It checks the full RFC 8259 grammar, including UTF-8 validity and surrogate pairs inside
/// strings, without building values. The replay hot path uses it to validate a line once and
/// learn where each top-level member sits, so edits can be spliced into the original bytes.
public struct JSONScanner: ~Copyable {
    /// Arrays and objects may nest this deep.
    public static let maximumDepth = 512

    @usableFromInline let base: UnsafePointer<UInt8>
    @usableFromInline let end: Int
    @usableFromInline var i: Int

    /// Scans `buffer`. The buffer must stay valid while the scanner is used.
    public init(_ buffer: UnsafeBufferPointer<UInt8>) {
        // An empty buffer has no base address; point at a static byte so reads are bounded by `end`.
        self.base = buffer.baseAddress ?? JSONScanner.emptyBase
        self.end = buffer.count
        self.i = 0
    }

    // Safe to share: allocated once, never written after initialization and never freed.
    nonisolated(unsafe) private static let emptyBase: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()

    /// Current byte offset.
    public var offset: Int { i }

    @inline(__always) func peek() -> UInt8? { i < end ? base[i] : nil }

    /// Moves to `offset`, for example to scan a nested value found by an earlier scan.
    public mutating func seek(to offset: Int) { i = offset }

    /// Skips JSON whitespace.
    @inline(__always) public mutating func skipWhitespace() {
        while i < end {
            let c = base[i]
            if c.isJSONWhitespace { i += 1 } else { return }
        }
    }

    func fail(_ message: String, at position: Int? = nil) -> JSONError {
        JSONError(.syntax, at: position ?? i, message)
    }

    /// Validates one value starting at the current offset (after whitespace) and returns its kind.
    public mutating func scanValue(depth: Int = 0) throws(JSONError) -> JSONKind {
        skipWhitespace()
        guard i < end else { throw fail("unexpected end of input, expected a value") }
        switch base[i] {
        case UInt8(ascii: "{"):
            try scanObject(depth: depth + 1)
            return .object
        case UInt8(ascii: "["):
            try scanArray(depth: depth + 1)
            return .array
        case UInt8(ascii: "\""):
            _ = try scanShortString()
            return .string
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try scanNumber()
            return .number
        case let c where c >= 0x80:
            throw JSONError(.syntax, at: i, "unexpected non-ASCII byte outside a string")
        default:
            throw fail("unexpected character '\(Character(Unicode.Scalar(base[i])))'")
        }
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONError) {
        let n = word.utf8CodeUnitCount
        guard end - i >= n else { throw fail("invalid literal") }
        // utf8Start points at the literal's n code units for the program's lifetime; the guard
        // above keeps base[i + k] inside the buffer.
        let w = word.utf8Start
        for k in 0..<n where base[i + k] != w[k] {
            throw fail("invalid literal")
        }
        i += n
    }

    mutating func scanNumber() throws(JSONError) {
        let start = i
        if base[i] == UInt8(ascii: "-") { i += 1 }
        guard i < end, isDigit(base[i]) else { throw fail("invalid number", at: start) }
        if base[i] == UInt8(ascii: "0") {
            i += 1
            if i < end, isDigit(base[i]) { throw fail("leading zero in number", at: start) }
        } else {
            while i < end, isDigit(base[i]) { i += 1 }
        }
        if i < end, base[i] == UInt8(ascii: ".") {
            i += 1
            guard i < end, isDigit(base[i]) else { throw fail("invalid number fraction", at: start) }
            while i < end, isDigit(base[i]) { i += 1 }
        }
        if i < end, base[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < end, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i += 1 }
            guard i < end, isDigit(base[i]) else { throw fail("invalid number exponent", at: start) }
            while i < end, isDigit(base[i]) { i += 1 }
        }
    }

    @inline(__always) func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    /// ``scanString()`` for the common short string, inlined where values and keys are scanned:
    /// when the first byte of the next 16 that is not printable ASCII other than `"` and `\\` is
    /// the closing quote, the string is plain and ends there (no call, no loop); otherwise
    /// ``scanString()`` scans it from its start.
    @inline(__always)
    mutating func scanShortString() throws(JSONError) -> (content: Range<Int>, hasEscapes: Bool) {
        #if _endian(little)
            let start = i + 1
            if end - start >= 16 {
                var p = start
                for _ in 0..<2 {
                    // `end - start >= 16` keeps both 8-byte reads (at start and start + 8) inside
                    // the buffer; loadUnaligned, because a byte buffer has no alignment.
                    let stops = Self.stringStops(UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self))
                    if stops != 0 {
                        let stop = p + stops.trailingZeroBitCount >> 3
                        guard base[stop] == UInt8(ascii: "\"") else { break }
                        i = stop + 1
                        return (start..<stop, false)
                    }
                    p += 8
                }
            }
        #endif
        return try scanString()
    }

    /// The high bit of each byte of `x` (eight bytes, little-endian) that is >= 0x80, < 0x20, `"`
    /// or `\\`. Borrows only run from a truly flagged lane into higher ones, so the lowest
    /// flagged lane is exact.
    @inline(__always)
    static func stringStops(_ x: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = x ^ (ones &* 0x22)
        let backslash = x ^ (ones &* 0x5C)
        return (x | ((x &- ones &* 0x20) & ~x) | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash))
            & 0x8080_8080_8080_8080
    }

    /// Validates a string at the current offset (which must be `"`).
    /// Returns the range of its content (without quotes) and whether it holds escapes.
    public mutating func scanString() throws(JSONError) -> (content: Range<Int>, hasEscapes: Bool) {
        let open = i
        i += 1
        let contentStart = i
        var escapes = false
        // The hot loop keeps the position in a local so it stays in a register; `i` is written
        // back before anything that reads it (escapes, UTF-8 sequences, errors, return).
        var p = i
        while true {
            p = skipPlainStringBytes(from: p)
            guard p < end else { break }
            let c = base[p]
            if c &- 0x20 < 0x60 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") {
                p += 1  // printable ASCII other than '"' and '\\'
            } else if c == UInt8(ascii: "\"") {
                i = p + 1
                return (contentStart..<p, escapes)
            } else if c == UInt8(ascii: "\\") {
                escapes = true
                i = p
                try scanEscape()
                p = i
            } else if c < 0x20 {
                i = p
                throw fail("unescaped control character in string")
            } else {
                i = p
                try scanUTF8Sequence()
                p = i
            }
        }
        i = p
        throw fail("unterminated string", at: open)
    }

    /// Returns the position of the first byte at or after `p` that is not printable ASCII other
    /// than `"` and `\\` (or a position near the end of the buffer; callers finish byte by byte).
    /// Reads eight bytes at a time with the classic SWAR tests: a lane is flagged when its byte
    /// is >= 0x80, < 0x20, `"` or `\\`. Borrows only run from a truly flagged lane into higher
    /// ones, so the lowest flagged lane is exact.
    @inline(__always) func skipPlainStringBytes(from start: Int) -> Int {
        var p = start
        #if _endian(little)
            while end - p >= 8 {
                // `base + p` stays in the buffer and `end - p >= 8` keeps the 8-byte read inside
                // it; loadUnaligned, because a byte buffer has no alignment to rely on.
                let flagged = Self.stringStops(UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self))
                if flagged != 0 { return p + flagged.trailingZeroBitCount >> 3 }
                p += 8
            }
        #endif
        return p
    }

    mutating func scanEscape() throws(JSONError) {
        let start = i
        i += 1
        guard i < end else { throw fail("unterminated escape", at: start) }
        switch base[i] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            i += 1
        case UInt8(ascii: "u"):
            i += 1
            let unit = try hex4()
            if unit >= 0xD800 && unit < 0xDC00 {
                // A high surrogate must be followed by an escaped low surrogate.
                guard end - i >= 6, base[i] == UInt8(ascii: "\\"), base[i + 1] == UInt8(ascii: "u") else {
                    throw fail("unpaired high surrogate in \\u escape", at: start)
                }
                i += 2
                let low = try hex4()
                guard low >= 0xDC00 && low < 0xE000 else {
                    throw fail("unpaired high surrogate in \\u escape", at: start)
                }
            } else if unit >= 0xDC00 && unit < 0xE000 {
                throw fail("unpaired low surrogate in \\u escape", at: start)
            }
        default:
            throw fail("invalid escape sequence", at: start)
        }
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
        guard end - i >= 4 else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = base[i]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: throw fail("invalid hex digit in \\u escape")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    /// Validates one multi-byte UTF-8 sequence (first byte >= 0x80) per RFC 3629.
    mutating func scanUTF8Sequence() throws(JSONError) {
        let start = i
        let b0 = base[i]
        func bad() -> JSONError { JSONError(.invalidUTF8, at: start, "invalid UTF-8 in string") }
        @inline(__always) func cont(_ k: Int) -> UInt8? {
            let p = start + k
            guard p < end else { return nil }
            let b = base[p]
            return b & 0xC0 == 0x80 ? b : nil
        }
        switch b0 {
        case 0xC2...0xDF:
            guard cont(1) != nil else { throw bad() }
            i += 2
        case 0xE0...0xEF:
            guard let b1 = cont(1), cont(2) != nil else { throw bad() }
            if b0 == 0xE0 && b1 < 0xA0 { throw bad() }  // overlong
            if b0 == 0xED && b1 >= 0xA0 { throw bad() }  // surrogate
            i += 3
        case 0xF0...0xF4:
            guard let b1 = cont(1), cont(2) != nil, cont(3) != nil else { throw bad() }
            if b0 == 0xF0 && b1 < 0x90 { throw bad() }  // overlong
            if b0 == 0xF4 && b1 >= 0x90 { throw bad() }  // above U+10FFFF
            i += 4
        default:
            throw bad()
        }
    }

    /// After an element or member: consumes `,` and returns false (more follow), or consumes the
    /// container's closing byte and returns true. `what` names the container in errors.
    @inline(__always) mutating func endOfItem(closing close: UInt8, _ what: StaticString) throws(JSONError) -> Bool {
        skipWhitespace()
        guard i < end else { throw fail("unterminated \(what)") }
        if base[i] == UInt8(ascii: ",") {
            i += 1
            return false
        }
        guard base[i] == close else {
            throw fail("expected ',' or '\(Character(Unicode.Scalar(close)))' in \(what)")
        }
        i += 1
        return true
    }

    /// Scans a member's key and the `:` after it; the offset is then at the value.
    @inline(__always) mutating func memberKey() throws(JSONError) -> (content: Range<Int>, hasEscapes: Bool) {
        skipWhitespace()
        guard i < end, base[i] == UInt8(ascii: "\"") else { throw fail("expected a string key in object") }
        let key = try scanShortString()
        skipWhitespace()
        guard i < end, base[i] == UInt8(ascii: ":") else { throw fail("expected ':' after object key") }
        i += 1
        return key
    }

    /// Steps over the opening byte of a container at `depth`; returns true (after its closing
    /// byte) when the container is empty.
    @inline(__always)
    mutating func enterContainer(depth: Int, closing: UInt8) throws(JSONError) -> Bool {
        guard depth <= JSONScanner.maximumDepth else {
            throw JSONError(.tooDeep, at: i, "nesting deeper than \(JSONScanner.maximumDepth)")
        }
        i += 1
        skipWhitespace()
        guard i < end, base[i] == closing else { return false }
        i += 1
        return true
    }

    mutating func scanArray(depth: Int) throws(JSONError) {
        if try enterContainer(depth: depth, closing: UInt8(ascii: "]")) { return }
        repeat {
            _ = try scanValue(depth: depth)
        } while try !endOfItem(closing: UInt8(ascii: "]"), "array")
    }

    mutating func scanObject(depth: Int) throws(JSONError) {
        if try enterContainer(depth: depth, closing: UInt8(ascii: "}")) { return }
        repeat {
            _ = try memberKey()
            _ = try scanValue(depth: depth)
        } while try !endOfItem(closing: UInt8(ascii: "}"), "object")
    }

    /// Validates that the whole buffer is exactly one JSON value with optional surrounding
    /// whitespace, and returns its kind.
    public mutating func scanDocument() throws(JSONError) -> JSONKind {
        let kind = try scanValue()
        skipWhitespace()
        guard i == end else { throw fail("unexpected data after the JSON value") }
        return kind
    }

    /// Validates `bytes` as one complete JSON document and returns its kind.
    public static func validate(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONKind {
        var s = JSONScanner(bytes)
        return try s.scanDocument()
    }
}
