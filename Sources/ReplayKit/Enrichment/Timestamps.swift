import Foundation
import MetaRouter

/// ISO-8601 timestamps ⇄ epoch milliseconds, without Foundation formatters (hot path).
enum Timestamps {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM|±HHMM]` (also a space instead of `T`)
    /// into milliseconds since 1970; without a zone the time is taken as UTC. Nil when the text
    /// is not such a timestamp.
    static func parseMillis(_ s: UnsafeBufferPointer<UInt8>) -> Int64? {
        let n = s.count
        guard n >= 19 else { return nil }
        func digits(_ at: Int, _ count: Int) -> Int? {
            var v = 0
            for k in at..<(at + count) {
                let c = s[k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard let year = digits(0, 4), s[4] == UInt8(ascii: "-"), let month = digits(5, 2), s[7] == UInt8(ascii: "-"),
            let day = digits(8, 2), s[10] == UInt8(ascii: "T") || s[10] == UInt8(ascii: "t") || s[10] == 0x20,
            let hour = digits(11, 2), s[13] == UInt8(ascii: ":"), let minute = digits(14, 2), s[16] == UInt8(ascii: ":"),
            let second = digits(17, 2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60 else { return nil }
        var p = 19
        var millis = 0
        if p < n, s[p] == UInt8(ascii: ".") || s[p] == UInt8(ascii: ",") {
            p += 1
            var scale = 100
            let start = p
            while p < n, s[p] >= 48, s[p] <= 57 {
                millis += Int(s[p] - 48) * scale
                scale /= 10
                p += 1
            }
            guard p > start else { return nil }
        }
        var offsetMinutes = 0
        if p == n {
            // No zone: UTC.
        } else if s[p] == UInt8(ascii: "Z") || s[p] == UInt8(ascii: "z") {
            p += 1
        } else if s[p] == UInt8(ascii: "+") || s[p] == UInt8(ascii: "-") {
            let sign = s[p] == UInt8(ascii: "-") ? -1 : 1
            p += 1
            guard p + 2 <= n, let oh = digits(p, 2) else { return nil }
            p += 2
            if p < n, s[p] == UInt8(ascii: ":") { p += 1 }
            guard p + 2 <= n, let om = digits(p, 2) else { return nil }
            p += 2
            guard oh < 24, om < 60 else { return nil }
            offsetMinutes = sign * (oh * 60 + om)
        } else {
            return nil
        }
        guard p == n else { return nil }
        let days = CivilCalendar.days(fromCivil: Int64(year), Int64(month), Int64(day))
        let secs = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return secs * 1000 + Int64(millis)
    }

    /// Formats epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    static func format(millis: Int64) -> String {
        MetaRouter.Timestamp.iso8601(epochMillis: millis)
    }
}
