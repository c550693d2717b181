import JSONCore

/// Finds the elements of an already-validated JSON array without decoding them.
package enum BatchSplitter {
    /// The byte range of each element of the array at `range` (from `[` to `]`).
    /// The bytes must already be valid JSON (for example checked by `ObjectLayout.scanDocument`).
    package static func elements(_ buffer: UnsafeBufferPointer<UInt8>, array range: Range<Int>) -> [Range<Int>] {
        var result: [Range<Int>] = []
        let end = range.upperBound - 1  // index of the closing `]`
        var p = range.lowerBound + 1
        while p < end {
            while p < end, buffer[p].isJSONWhitespace { p += 1 }
            if p >= end { break }
            let start = p
            var depth = 0
            var inString = false
            scan: while p < end {
                let c = buffer[p]
                if inString {
                    if c == UInt8(ascii: "\\") {
                        p += 2
                        continue
                    }
                    if c == UInt8(ascii: "\"") { inString = false }
                    p += 1
                    continue
                }
                switch c {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: ","): if depth == 0 { break scan }
                default: break
                }
                p += 1
            }
            var last = p
            while last > start, buffer[last - 1].isJSONWhitespace { last -= 1 }
            result.append(start..<last)
            p += 1  // skip the comma
        }
        return result
    }
}
