/// Copies valid JSON without the whitespace between its tokens.
enum JSONCompaction {
    /// Appends `json` (one valid JSON value) to `out` without insignificant whitespace.
    ///
    /// The slices it copies (`runStart..<i`, `runStart...`) lie inside `json`: `runStart` is at
    /// most `i + 1 <= json.count`.
    static func append(_ json: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var inString = false
        var escaped = false
        var runStart = 0
        for i in 0..<json.count {
            let c = json[i]
            if inString {
                if escaped {
                    escaped = false
                } else if c == UInt8(ascii: "\\") {
                    escaped = true
                } else if c == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c.isJSONWhitespace {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: json[runStart..<i]))
                runStart = i + 1
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: json[runStart...]))
    }
}
