import Timestamps

extension Workspace {
    /// Appends `millis` since 1970 as a quoted ISO 8601 UTC time with milliseconds
    /// (`"2025-03-01T09:59:58.123Z"`) to the scratch bytes; nil outside years 0001-9999.
    mutating func scratchTimestamp(epochMillis millis: Int64) -> Piece? {
        var days = millis / 86_400_000
        var ms = millis % 86_400_000
        if ms < 0 {
            ms += 86_400_000
            days -= 1
        }
        let (y, m, d) = CivilCalendar.civil(fromDays: days)
        guard (1...9999).contains(y) else { return nil }
        var text: (UInt64, UInt64, UInt64, UInt16) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { raw in
            // `raw` is the tuple's 26 bytes; the writes below fill exactly bytes 0..<26.
            var k = 0
            /// Writes `value` as `width` digits, then `separator`.
            func put(_ value: Int64, _ width: Int, _ separator: UInt8) {
                var v = value
                for j in stride(from: width - 1, through: 0, by: -1) {
                    raw[k + j] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
                    v /= 10
                }
                k += width
                raw[k] = separator
                k += 1
            }
            raw[0] = UInt8(ascii: "\"")
            k = 1
            put(y, 4, UInt8(ascii: "-"))
            put(m, 2, UInt8(ascii: "-"))
            put(d, 2, UInt8(ascii: "T"))
            put(ms / 3_600_000, 2, UInt8(ascii: ":"))
            put(ms / 60_000 % 60, 2, UInt8(ascii: ":"))
            put(ms / 1000 % 60, 2, UInt8(ascii: "."))
            put(ms % 1000, 3, UInt8(ascii: "Z"))
            raw[25] = UInt8(ascii: "\"")
        }
        let start = UInt32(scratch.count)
        // The tuple's 26 bytes, all written above, read as raw bytes.
        withUnsafeBytes(of: &text) { scratch.append(contentsOf: $0) }
        return .scratch(start, UInt32(scratch.count))
    }

    /// The timestamp piece for an ISO 8601 / RFC 3339 text (any zone, or none for UTC, as
    /// ``Timestamp`` reads it), normalized to UTC with milliseconds; nil when it is not one.
    mutating func scratchTimestamp(text: UnsafeBufferPointer<UInt8>) -> Piece? {
        guard let millis = Timestamp.epochMillis(utf8: text) else { return nil }
        return scratchTimestamp(epochMillis: millis)
    }
}
