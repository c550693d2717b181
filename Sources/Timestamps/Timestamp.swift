import Foundation

/// ISO 8601 / RFC 3339 timestamps ⇄ milliseconds since 1970, without Foundation formatters (the
/// replay hot path parses one per event).
///
/// Formatting writes what the SDKs write: UTC with milliseconds, `2025-10-23T12:34:56.789Z`.
/// Parsing accepts one set of forms, everywhere:
/// - a date, `YYYY-MM-DD` (midnight UTC);
/// - a date and time, `YYYY-MM-DD` + `T`, `t` or a space + `HH:MM`, optionally `:SS`, optionally
///   a fraction after `.` or `,` with any number of digits (read to the millisecond, the rest
///   truncated); second 60 (a leap second) counts as the next minute's second 0;
/// - after a time, an optional zone: `Z`, `z`, `±HH`, `±HH:MM` or `±HHMM` (hours below 24,
///   minutes below 60); without one the time is UTC.
///
/// The internet date-time (RFC 3339's `date-time`, what `ISO8601DateFormatter` writes and what
/// ``isInternetDateTime(_:)`` accepts) is the strict part of that grammar: a date, `T` or `t`, a
/// time with seconds (a fraction only after `.`), and a zone, `Z`, `z`, `±HH:MM` or `±HHMM`.
///
/// `@_spi(PerLine) public` rather than `package`: mr-replay parses a timestamp on every line,
/// and only public declarations are optimized across modules (docs/ARCHITECTURE.md, "Access").
package enum Timestamp {
    /// Formats `date`, for example `2026-11-22T06:50:53.123Z` (always 24 bytes for years 0...9999).
    package static func iso8601(_ date: Date) -> String {
        iso8601(epochMillis: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// Formats milliseconds since 1970, for example `2026-11-22T06:50:53.123Z`.
    package static func iso8601(epochMillis totalMillis: Int64) -> String {
        var days = totalMillis / 86_400_000
        var ms = totalMillis % 86_400_000
        if ms < 0 {
            ms += 86_400_000
            days -= 1
        }
        let (y, m, d) = CivilCalendar.civil(fromDays: days)
        let h = ms / 3_600_000, mi = (ms / 60_000) % 60, s = (ms / 1000) % 60, milli = ms % 1000
        guard (0...9999).contains(y) else {
            return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T" + pad(h, 2) + ":" + pad(mi, 2) + ":"
                + pad(s, 2) + "." + pad(milli, 3) + "Z"
        }
        // Every field fits its width here, so the text is exactly 24 bytes, written in place
        // (the engine stamps each batch's `sentAt` with it).
        return String(unsafeUninitializedCapacity: 24) { out in
            var k = 0
            func put(_ v: Int64, _ width: Int, then separator: UInt8?) {
                var v = v
                for j in stride(from: width - 1, through: 0, by: -1) {
                    out[k + j] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
                    v /= 10
                }
                k += width
                if let separator {
                    out[k] = separator
                    k += 1
                }
            }
            put(y, 4, then: UInt8(ascii: "-"))
            put(m, 2, then: UInt8(ascii: "-"))
            put(d, 2, then: UInt8(ascii: "T"))
            put(h, 2, then: UInt8(ascii: ":"))
            put(mi, 2, then: UInt8(ascii: ":"))
            put(s, 2, then: UInt8(ascii: "."))
            put(milli, 3, then: UInt8(ascii: "Z"))
            return k
        }
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Parses a timestamp in one of the forms listed on ``Timestamp`` into milliseconds since
    /// 1970; nil when `text` is not one.
    package static func epochMillis(_ text: String) -> Int64? {
        var s = text
        return s.withUTF8 { epochMillis(utf8: $0) }
    }

    /// Parses timestamp bytes; see ``epochMillis(_:)``.
    package static func epochMillis(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        parse(bytes, strict: false)
    }

    /// Whether `text` is an internet date-time (see ``Timestamp``):
    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`.
    package static func isInternetDateTime(_ text: String) -> Bool {
        var s = text
        return s.withUTF8 { parse($0, strict: true) } != nil
    }

    /// The one parser: the whole grammar, or with `strict` its internet date-time part. The form
    /// the SDKs write, which is in both, takes a shortcut (``sdkForm(_:)``).
    @inline(__always)
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, strict: Bool) -> Int64? {
        if let millis = sdkForm(bytes) { return millis }
        return parseGrammar(bytes, strict: strict)
    }

    /// The grammar, read byte by byte (see ``parse(_:strict:)``).
    package static func parseGrammar(_ bytes: UnsafeBufferPointer<UInt8>, strict: Bool) -> Int64? {
        var p = TimestampCursor(bytes, strict: strict)
        guard let year = p.digits(4), p.eat(UInt8(ascii: "-")), let month = p.digits(2), p.eat(UInt8(ascii: "-")),
            let day = p.digits(2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var time = TimeOfDay()
        if p.eat(UInt8(ascii: "T")) || p.eat(UInt8(ascii: "t")) || (!strict && p.eat(UInt8(ascii: " "))) {
            guard let t = p.timeOfDay() else { return nil }
            time = t
        } else if strict {
            return nil
        }
        guard p.atEnd else { return nil }
        let days = CivilCalendar.days(fromCivil: Int64(year), Int64(month), Int64(day))
        let seconds = days * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second) - Int64(time.offsetMinutes * 60)
        return seconds * 1000 + Int64(time.millis)
    }
}

extension Timestamp {
    /// The form the SDKs write (and ``iso8601(epochMillis:)`` writes), `YYYY-MM-DDTHH:MM:SS.mmmZ`,
    /// exactly 24 bytes, read as three 8-byte words: its separators and digits are checked a word
    /// at a time, without a branch per byte. nil when `bytes` is not exactly that form, a field is
    /// out of range, or the count is not 24 (then ``parseGrammar(_:strict:)`` decides); otherwise
    /// the same milliseconds the grammar gives.
    @inline(__always)
    package static func sdkForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count == 24, let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        // count == 24, so the three 8-byte reads (at 0, 8 and 16) stay inside the buffer;
        // loadUnaligned, because the bytes have no alignment. Byte k of a word is the text's
        // byte 8w + k on any machine, as the words are read little-endian.
        guard let v0 = digitValues(UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)), .first),
            let v1 = digitValues(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)), .second),
            let v2 = digitValues(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)), .third)
        else { return nil }
        @inline(__always) func d(_ word: UInt64, _ k: Int) -> Int { Int(truncatingIfNeeded: (word >> UInt64(8 * k)) & 0xFF) }
        let year = d(v0, 0) * 1000 + d(v0, 1) * 100 + d(v0, 2) * 10 + d(v0, 3)
        let month = d(v0, 5) * 10 + d(v0, 6)
        let day = d(v1, 0) * 10 + d(v1, 1)
        let hour = d(v1, 3) * 10 + d(v1, 4)
        let minute = d(v1, 6) * 10 + d(v1, 7)
        let second = d(v2, 1) * 10 + d(v2, 2)
        let millis = d(v2, 4) * 100 + d(v2, 5) * 10 + d(v2, 6)
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60 else { return nil }
        let days = CivilCalendar.days(fromCivil: Int64(year), Int64(month), Int64(day))
        return (days * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000 + Int64(millis)
    }

    /// One word of the SDK form: which of its bytes are separators, and what they must be.
    struct SDKFormWord {
        /// 0xFF in each separator byte.
        let separators: UInt64
        /// The separators' bytes in their places, 0 elsewhere.
        let expected: UInt64

        /// `YYYY-MM-`, `DDTHH:MM` and `:SS.mmmZ`, as little-endian words.
        static let first = SDKFormWord(separators: 0xFF00_00FF_0000_0000, expected: 0x2D00_002D_0000_0000)
        static let second = SDKFormWord(separators: 0x0000_FF00_00FF_0000, expected: 0x0000_3A00_0054_0000)
        static let third = SDKFormWord(separators: 0xFF00_0000_FF00_00FF, expected: 0x5A00_0000_2E00_003A)
    }

    /// The word with each digit byte replaced by its value (0...9) and each separator by 0; nil
    /// when a separator is not the expected byte or a digit byte is not `0`...`9`.
    @inline(__always)
    static func digitValues(_ word: UInt64, _ form: SDKFormWord) -> UInt64? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        guard word & form.separators == form.expected else { return nil }
        // Separators become `0`, so that every byte must now be a digit.
        let x = (word & ~form.separators) | (ones &* 0x30 & form.separators)
        // With no byte >= 0x80, adding 0x46 carries out of no byte: a byte gets its high bit
        // when it is above `9`. Subtracting `0` borrows only upward from a byte below `0`,
        // which then has its high bit: the lowest such byte is always flagged.
        guard x & highs == 0, ((x &+ ones &* 0x46) | (x &- ones &* 0x30)) & highs == 0 else { return nil }
        return (x &- ones &* 0x30) & ~form.separators
    }
}

/// The time part of a timestamp, as parsed.
private struct TimeOfDay {
    var hour = 0, minute = 0, second = 0, millis = 0
    /// The zone's offset east of UTC.
    var offsetMinutes = 0
}

/// A reading position in timestamp bytes; `strict` reads the internet date-time form only.
private struct TimestampCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let strict: Bool
    var i = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, strict: Bool) {
        self.bytes = bytes
        self.strict = strict
    }

    var atEnd: Bool { i == bytes.count }

    /// The next `count` bytes as a decimal number, when they are all digits.
    mutating func digits(_ count: Int) -> Int? {
        guard i + count <= bytes.count else { return nil }
        var v = 0
        for k in i..<(i + count) {
            let d = Int(bytes[k]) &- 48
            guard d >= 0 && d <= 9 else { return nil }
            v = v * 10 + d
        }
        i += count
        return v
    }

    /// Whether the next byte is `c` (then it is consumed).
    mutating func eat(_ c: UInt8) -> Bool {
        guard i < bytes.count, bytes[i] == c else { return false }
        i += 1
        return true
    }

    /// `HH:MM[:SS[(.|,)fraction]][zone]`.
    mutating func timeOfDay() -> TimeOfDay? {
        var t = TimeOfDay()
        guard let h = digits(2), eat(UInt8(ascii: ":")), let m = digits(2), h < 24, m < 60 else { return nil }
        t.hour = h
        t.minute = m
        if eat(UInt8(ascii: ":")) {
            guard let s = digits(2), s <= 60 else { return nil }
            t.second = s
            if eat(UInt8(ascii: ".")) || (!strict && eat(UInt8(ascii: ","))) {
                guard let ms = fractionMillis() else { return nil }
                t.millis = ms
            }
        } else if strict {
            return nil
        }
        guard let offset = zoneMinutes() else { return nil }
        t.offsetMinutes = offset
        return t
    }

    /// One or more fraction digits, as milliseconds (digits after the third are dropped).
    mutating func fractionMillis() -> Int? {
        let start = i
        var millis = 0
        var scale = 100
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
            millis += Int(bytes[i] - 48) * scale
            scale /= 10
            i += 1
        }
        return i > start ? millis : nil
    }

    /// The zone's offset in minutes: 0 for none or `Z`; nil when a zone is malformed (or, when
    /// strict, missing or hours alone).
    mutating func zoneMinutes() -> Int? {
        if (!strict && atEnd) || eat(UInt8(ascii: "Z")) || eat(UInt8(ascii: "z")) { return 0 }
        let sign: Int
        if eat(UInt8(ascii: "+")) {
            sign = 1
        } else if eat(UInt8(ascii: "-")) {
            sign = -1
        } else {
            return nil
        }
        guard let hours = digits(2), hours < 24 else { return nil }
        if atEnd { return strict ? nil : sign * hours * 60 }
        _ = eat(UInt8(ascii: ":"))
        guard let minutes = digits(2), minutes < 60 else { return nil }
        return sign * (hours * 60 + minutes)
    }
}
