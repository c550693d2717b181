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
        let days = daysFromCivil(year, month, day)
        let secs = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return secs * 1000 + Int64(millis)
    }

    /// Formats epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    static func format(millis: Int64) -> String {
        let secs = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let ms = Int(millis - secs * 1000)
        var days = Int(secs >= 0 ? secs / 86_400 : (secs - 86_399) / 86_400)
        let rem = Int(secs - Int64(days) * 86_400)
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let doe = days - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func pad(_ v: Int, _ w: Int) -> String {
            let t = String(v)
            return String(repeating: "0", count: max(0, w - t.count)) + t
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rem / 3600, 2)):\(pad(rem / 60 % 60, 2)):\(pad(rem % 60, 2)).\(pad(ms, 3))Z"
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
