import Foundation

/// ISO 8601 timestamps as the SDKs write them: UTC with milliseconds, `2025-10-23T12:34:56.789Z`.
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
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T" + pad(h, 2) + ":" + pad(mi, 2) + ":" + pad(s, 2)
            + "." + pad(milli, 3) + "Z"
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Parses an ISO 8601 / RFC 3339 timestamp (`YYYY-MM-DD`, optional `THH:MM[:SS[.fff]]`, and
    /// `Z` or `±HH[:]MM`) into milliseconds since 1970. Returns `nil` when it is not one.
    package static func epochMillis(_ text: String) -> Int64? {
        var s = text
        return s.withUTF8 { epochMillis(utf8: $0) }
    }

    /// Parses ISO 8601 bytes; see ``epochMillis(_:)``.
    package static func epochMillis(utf8 b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        func num(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in i..<i + n {
                let d = Int(b[k]) - 48
                guard d >= 0 && d <= 9 else { return nil }
                v = v * 10 + d
            }
            i += n
            return v
        }
        func eat(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let year = num(4), eat("-"), let month = num(2), eat("-"), let day = num(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var hour = 0, minute = 0, second = 0, millis = 0, offsetMinutes = 0
        if i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ") {
            i += 1
            guard let h = num(2), eat(":"), let m = num(2), h < 24, m < 60 else { return nil }
            hour = h
            minute = m
            if eat(":") {
                guard let sec = num(2), sec <= 60 else { return nil }
                second = min(sec, 59)
                if eat(".") || eat(",") {
                    var digits = 0
                    var frac = 0
                    while i < b.count, b[i] >= 48, b[i] <= 57 {
                        if digits < 3 { frac = frac * 10 + Int(b[i] - 48) }
                        digits += 1
                        i += 1
                    }
                    guard digits > 0 else { return nil }
                    var scale = digits
                    while scale < 3 {
                        frac *= 10
                        scale += 1
                    }
                    millis = frac
                }
            }
            if eat("Z") || eat("z") {
            } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = num(2) else { return nil }
                _ = eat(":")
                let om = num(2) ?? 0
                offsetMinutes = sign * (oh * 60 + om)
            }
        }
        guard i == b.count else { return nil }
        let days = Int(CivilCalendar.days(fromCivil: Int64(year), Int64(month), Int64(day)))
        let secs = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return secs * 1000 + Int64(millis)
    }
}
