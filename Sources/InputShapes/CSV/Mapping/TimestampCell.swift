import JSONCore

/// A timestamp cell: ISO 8601 text is kept as written; an epoch time (a plain decimal number:
/// an optional `-`, digits, an optional fraction) becomes `YYYY-MM-DDTHH:MM:SS.mmmZ`.
///
/// Text is ISO 8601 when it has the calendar-date form `YYYY-MM-DD`, optionally followed by `T`
/// (or a space) and `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fff…`, and then optionally `Z` or an offset
/// `±HH`, `±HHMM`, `±HH:MM`. Week and ordinal dates are not accepted.
enum TimestampCell {
    /// Appends the timestamp in `text` (trimmed, not empty) as a JSON string.
    static func append(_ text: UnsafeBufferPointer<UInt8>, unit: EpochUnit, to out: inout [UInt8]) -> CellOutcome {
        if let epoch = EpochText(text) {
            let mark = out.count
            out.append(UInt8(ascii: "\""))
            guard let millis = epoch.milliseconds(unit), CivilTime.appendISO8601(millisecondsSinceEpoch: millis, to: &out) else {
                out.removeLast(out.count - mark)
                return .invalid("epoch time out of range (years 0000 to 9999)")
            }
            out.append(UInt8(ascii: "\""))
            return .written
        }
        guard ISO8601Shape.matches(text) else { return .invalid("not an ISO 8601 timestamp or an epoch time") }
        // ISO8601Shape accepts ASCII digits, letters and punctuation only: nothing to escape.
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: text)
        out.append(UInt8(ascii: "\""))
        return .written
    }
}

/// A decimal number as an epoch time: sign, whole part, fraction digits.
struct EpochText {
    /// Whether it starts with `-`.
    let negative: Bool
    /// The whole part (at most 16 digits).
    let whole: Int64
    /// The first three fraction digits as milliseconds (`.5` is 500).
    let fractionMillis: Int64

    /// Parses `-?[0-9]+(\.[0-9]+)?`; nil for anything else or a whole part over 16 digits.
    init?(_ text: UnsafeBufferPointer<UInt8>) {
        var i = 0
        negative = text.first == UInt8(ascii: "-")
        if negative { i = 1 }
        var whole: Int64 = 0
        var digits = 0
        while i < text.count, text[i] &- UInt8(ascii: "0") < 10 {
            whole = whole * 10 + Int64(text[i] - UInt8(ascii: "0"))
            digits += 1
            i += 1
            if digits > 16 { return nil }
        }
        guard digits > 0 else { return nil }
        var fraction: Int64 = 0
        if i < text.count {
            guard text[i] == UInt8(ascii: "."), i + 1 < text.count else { return nil }
            i += 1
            var place: Int64 = 100
            while i < text.count {
                guard text[i] &- UInt8(ascii: "0") < 10 else { return nil }
                fraction += Int64(text[i] - UInt8(ascii: "0")) * place
                place /= 10
                i += 1
            }
        }
        self.whole = whole
        fractionMillis = fraction
    }

    /// Milliseconds since the epoch in `unit` (``EpochUnit/auto``: 10^11 and more is
    /// milliseconds); nil when out of range.
    func milliseconds(_ unit: EpochUnit) -> Int64? {
        let inMillis = unit == .milliseconds || (unit == .auto && whole >= 100_000_000_000)
        let (scaled, overflow) = inMillis ? (whole, false) : whole.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return nil }
        let magnitude = inMillis ? scaled : scaled + fractionMillis
        return negative ? -magnitude : magnitude
    }
}

/// Calendar arithmetic for epoch times (the proleptic Gregorian calendar, UTC).
enum CivilTime {
    /// Appends `YYYY-MM-DDTHH:MM:SS.mmmZ` for a time in milliseconds since
    /// 1970-01-01T00:00:00Z to `out`; false (nothing appended) outside the years 0000 to 9999.
    static func appendISO8601(millisecondsSinceEpoch millis: Int64, to out: inout [UInt8]) -> Bool {
        let dayMillis: Int64 = 86_400_000
        let days = millis >= 0 ? millis / dayMillis : -((-millis + dayMillis - 1) / dayMillis)
        let ofDay = millis - days * dayMillis
        let (year, month, day) = civil(fromDays: days)
        guard year >= 0 && year <= 9999 else { return false }
        out.appendBytes(upTo: 24) { cursor in
            digits(year, 4, &cursor)
            cursor.write(UInt8(ascii: "-"))
            digits(month, 2, &cursor)
            cursor.write(UInt8(ascii: "-"))
            digits(day, 2, &cursor)
            cursor.write(UInt8(ascii: "T"))
            digits(ofDay / 3_600_000, 2, &cursor)
            cursor.write(UInt8(ascii: ":"))
            digits(ofDay / 60_000 % 60, 2, &cursor)
            cursor.write(UInt8(ascii: ":"))
            digits(ofDay / 1000 % 60, 2, &cursor)
            cursor.write(UInt8(ascii: "."))
            digits(ofDay % 1000, 3, &cursor)
            cursor.write(UInt8(ascii: "Z"))
        }
        return true
    }

    /// Writes `value` (not negative, below 10^width) as exactly `width` digits, zero-padded.
    @inline(__always)
    private static func digits(_ value: Int64, _ width: Int, _ cursor: inout ByteCursor) {
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            cursor.write(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// The civil date of a day count from 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
