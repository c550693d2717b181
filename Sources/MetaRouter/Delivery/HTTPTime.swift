import Foundation

/// Date formatting and parsing used on the wire, without locale-dependent formatters.
enum HTTPTime {
    /// `2026-11-22T06:50:53.123Z` (always 24 bytes for years 0...9999).
    static func iso8601Millis(_ date: Date) -> String {
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var days = totalMillis / 86_400_000
        var ms = totalMillis % 86_400_000
        if ms < 0 {
            ms += 86_400_000
            days -= 1
        }
        let (y, m, d) = civil(fromDays: days)
        let h = ms / 3_600_000, mi = (ms / 60_000) % 60, s = (ms / 1000) % 60, milli = ms % 1000
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T" + pad(h, 2) + ":" + pad(mi, 2) + ":" + pad(s, 2)
            + "." + pad(milli, 3) + "Z"
    }

    /// Parses an IMF-fixdate such as `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func parseHTTPDate(_ text: String) -> Date? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int64(parts[1]), let year = Int64(parts[3]),
              let month = months.firstIndex(of: String(parts[2]))
        else { return nil }
        let hms = parts[4].split(separator: ":")
        guard hms.count == 3, let h = Int64(hms[0]), let mi = Int64(hms[1]), let s = Int64(hms[2]),
              (1...31).contains(day), (0...23).contains(h), (0...59).contains(mi), (0...60).contains(s)
        else { return nil }
        let days = self.days(fromCivil: year, Int64(month + 1), day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + h * 3600 + mi * 60 + s))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// Howard Hinnant's days-from-civil algorithm (proleptic Gregorian calendar).
    static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The inverse of ``days(fromCivil:_:_:)``.
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The wait a `Retry-After` value asks for: delta-seconds or an HTTP-date relative to `now`.
    static func retryAfter(_ value: String, now: Date) -> Duration? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if let secs = Int64(v), secs >= 0 { return .seconds(secs) }
        if let date = parseHTTPDate(v) {
            return .fromSeconds(max(0, date.timeIntervalSince(now)))
        }
        return nil
    }
}
