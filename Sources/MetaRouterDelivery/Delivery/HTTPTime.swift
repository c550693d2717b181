import Foundation
import Timestamps

/// Date formatting and parsing used on the wire, without locale-dependent formatters.
enum HTTPTime {
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
        let days = CivilCalendar.days(fromCivil: year, Int64(month + 1), day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + h * 3600 + mi * 60 + s))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

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
