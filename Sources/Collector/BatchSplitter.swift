import JSONCore

/// Finds the elements of an already-validated JSON array without decoding them.
package enum BatchSplitter {
    /// The byte range of each element of the array at `range` (from `[` to `]`).
    /// The bytes must already be valid JSON (for example checked by `ObjectLayout.scanDocument`).
    package static func elements(_ buffer: UnsafeBufferPointer<UInt8>, array range: Range<Int>) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var scanner = JSONScanner(UnsafeBufferPointer(rebasing: buffer[..<range.upperBound]))
        scanner.seek(to: range.lowerBound)
        // Valid JSON, so the skim cannot fail; what it found so far stands if it did.
        _ = scanner.skipArrayTrusting { result.append($0) }
        return result
    }
}
