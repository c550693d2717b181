import JSONCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The batch-shape check: finds the top-level `"batch"` array of a request body and counts
/// its elements and measures the largest, without validating or decoding anything.
///
/// It only tracks nesting and skips strings (with `memchr`, honouring backslash escapes), so it
/// costs a small fraction of a validating scan. It trusts the client: malformed JSON gives a
/// best-effort count. Both servers apply it (``IngestionPolicy/batchShape(_:)``) to requests
/// that came with a valid Basic header; the full collector then validates the events as well.
package enum BatchSkimmer {
    /// What a skim found.
    package struct Summary: Equatable, Sendable {
        /// Elements of the `batch` array.
        package var events = 0
        /// Bytes of the largest element (from its first to its last non-whitespace byte, as the
        /// validating path measures it).
        package var largestEvent = 0

        /// A summary of `events` elements, the largest `largestEvent` bytes.
        package init(events: Int = 0, largestEvent: Int = 0) {
            self.events = events
            self.largestEvent = largestEvent
        }
    }

    /// The summary of the first top-level `"batch"` member whose value is an array, or nil
    /// when there is none, the body does not start with an object, or the array or a string
    /// in it is not closed (a truncated body).
    package static func skim(_ body: UnsafeBufferPointer<UInt8>) -> Summary? {
        guard let base = body.baseAddress else { return nil }
        let end = body.count
        var p = 0
        while p < end, base[p].isJSONWhitespace { p += 1 }
        guard p < end, base[p] == UInt8(ascii: "{") else { return nil }
        p += 1
        var depth = 1
        while p < end {
            let c = base[p]
            switch c {
            case UInt8(ascii: "\""):
                let start = p + 1
                guard let close = stringEnd(base, from: start, end: end) else { return nil }
                p = close + 1
                // Safe: `close - start == 5` is checked first, so memcmp reads 5 bytes of the body.
                guard depth == 1, close - start == 5, memcmp(base + start, "batch", 5) == 0 else { continue }
                var q = p
                while q < end, base[q].isJSONWhitespace { q += 1 }
                guard q < end, base[q] == UInt8(ascii: ":") else { continue }
                q += 1
                while q < end, base[q].isJSONWhitespace { q += 1 }
                guard q < end, base[q] == UInt8(ascii: "[") else { continue }
                return countElements(base, openingAt: q, end: end)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                p += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return nil }
                p += 1
            default:
                p += 1
            }
        }
        return nil
    }

    /// Counts the elements of the array whose `[` is at `open`.
    private static func countElements(_ base: UnsafePointer<UInt8>, openingAt open: Int, end: Int) -> Summary? {
        var summary = Summary()
        var p = open + 1
        var depth = 0  // nesting inside the current element
        var elementStart: Int?
        func closeElement(at separator: Int) {
            guard let start = elementStart else { return }
            var end = separator
            while end > start, base[end - 1].isJSONWhitespace { end -= 1 }
            summary.events += 1
            summary.largestEvent = max(summary.largestEvent, end - start)
            elementStart = nil
        }
        while p < end {
            let c = base[p]
            if elementStart == nil, !c.isJSONWhitespace, !(depth == 0 && (c == UInt8(ascii: ",") || c == UInt8(ascii: "]"))) {
                elementStart = p
            }
            switch c {
            case UInt8(ascii: "\""):
                guard let close = stringEnd(base, from: p + 1, end: end) else { return nil }
                p = close + 1
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"):
                depth -= 1
            case UInt8(ascii: "]"):
                if depth == 0 {
                    closeElement(at: p)
                    return summary
                }
                depth -= 1
            case UInt8(ascii: ","):
                if depth == 0 { closeElement(at: p) }
            default:
                break
            }
            p += 1
        }
        return nil
    }

    /// The index of the `"` that closes a string whose content starts at `start`, or nil.
    @inline(__always)
    private static func stringEnd(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int? {
        var p = start
        while p < end {
            guard let hit = memchr(base + p, Int32(UInt8(ascii: "\"")), end - p) else { return nil }
            // Safe: memchr returns a pointer into the searched range, `base[p..<end]`, which is
            // memory already bound to UInt8 (`base` is an UnsafePointer<UInt8>).
            let q = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base
            // The quote is escaped when an odd number of backslashes precede it.
            var slashes = 0
            while q - 1 - slashes >= start, base[q - 1 - slashes] == UInt8(ascii: "\\") { slashes += 1 }
            if slashes & 1 == 0 { return q }
            p = q + 1
        }
        return nil
    }

}
