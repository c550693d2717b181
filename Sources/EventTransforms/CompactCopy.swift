/// Copies validated JSON without the whitespace between its tokens.
enum CompactCopy {
    /// Appends the JSON value at `range` of `source` (validated JSON) to `out` without the
    /// spaces, tabs and line breaks outside its strings. Strings are copied as they are.
    static func append(_ source: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, into out: inout [UInt8]) {
        guard let base = source.baseAddress, !range.isEmpty else { return }
        // Every read is at an offset in `range`, which lies inside `source`: the value is
        // validated JSON, so each string's closing quote comes before `end`, and the backslashes
        // counted back from a quote stop at the string's opening quote at the latest.
        let end = range.upperBound
        var runStart = range.lowerBound
        var i = range.lowerBound
        while i < end {
            let c = base[i]
            if c == UInt8(ascii: "\"") {
                i = closingQuote(base, after: i)
                i += 1
            } else if c <= 0x20 {
                // Outside strings, validated JSON has no bytes up to 0x20 but whitespace.
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart)) }
                i += 1
                runStart = i
            } else {
                i += 1
            }
        }
        if runStart < end { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: end - runStart)) }
    }

    /// The offset of the quote that closes the string opened by the quote at `open`.
    ///
    /// Looks for the next quote byte by byte, then counts the backslashes before it (an odd
    /// number escapes it): the loop's next read never waits on the byte just read, which makes
    /// it several times faster than stepping over each escape as it comes.
    @inline(__always)
    private static func closingQuote(_ base: UnsafePointer<UInt8>, after open: Int) -> Int {
        var i = open + 1
        while true {
            while base[i] != UInt8(ascii: "\"") { i += 1 }
            var k = i - 1
            while base[k] == UInt8(ascii: "\\") { k -= 1 }
            if (i - 1 - k) & 1 == 0 { return i }
            i += 1
        }
    }
}
