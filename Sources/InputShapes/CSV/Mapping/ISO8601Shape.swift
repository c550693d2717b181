/// Recognises the ISO 8601 forms a timestamp cell may keep as written (see ``TimestampCell``).
/// It checks the shape and the ranges of each part, not the calendar (`2024-02-31` passes):
/// the pipeline's own timestamp checks judge the value.
enum ISO8601Shape {
    /// Whether `text` is a calendar date with an optional time and zone.
    static func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var p = Parser(text: text)
        guard p.number(4) != nil, p.take("-"), p.number(2, in: 1...12) != nil, p.take("-"),
            p.number(2, in: 1...31) != nil
        else { return false }
        if p.atEnd { return true }
        guard p.take("T") || p.take("t") || p.take(" "), p.number(2, in: 0...23) != nil, p.take(":"),
            p.number(2, in: 0...59) != nil
        else { return false }
        if p.take(":") {
            guard p.number(2, in: 0...60) != nil else { return false }
            if p.take(".") || p.take(",") {
                guard p.digits() > 0 else { return false }
            }
        }
        if p.atEnd || ((p.take("Z") || p.take("z")) && p.atEnd) { return true }
        guard p.take("+") || p.take("-"), p.number(2, in: 0...23) != nil else { return false }
        if p.atEnd { return true }
        _ = p.take(":")
        return p.number(2, in: 0...59) != nil && p.atEnd
    }

    /// A cursor over the text.
    private struct Parser {
        let text: UnsafeBufferPointer<UInt8>
        var i = 0

        var atEnd: Bool { i == text.count }

        /// Steps over `c` when it is next.
        mutating func take(_ c: Unicode.Scalar) -> Bool {
            guard i < text.count, text[i] == UInt8(ascii: c) else { return false }
            i += 1
            return true
        }

        /// Reads exactly `width` digits whose value is in `range`.
        mutating func number(_ width: Int, in range: ClosedRange<Int> = 0...Int.max) -> Int? {
            guard text.count - i >= width else { return nil }
            var value = 0
            for k in 0..<width {
                let d = text[i + k] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                value = value * 10 + Int(d)
            }
            guard range.contains(value) else { return nil }
            i += width
            return value
        }

        /// Steps over digits; returns how many.
        mutating func digits() -> Int {
            let from = i
            while i < text.count, text[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            return i - from
        }
    }
}
