import JSONCore

/// The batch-shape check: finds the top-level `"batch"` array of a request body and counts
/// its elements and measures the largest, without validating or decoding anything.
///
/// It walks the body with JSONCore's trusting skim (brackets and quotes only, strings jumped by
/// their closing quote), so it costs a small fraction of a validating scan. It trusts the
/// client: what is inside strings and scalars is not checked. Both servers apply it (``IngestionPolicy/batchShape(_:)``) to requests
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
    /// when there is none, the body does not start with an object, or the body is cut short or
    /// not shaped like JSON before that member's array closes.
    package static func skim(_ body: UnsafeBufferPointer<UInt8>) -> Summary? {
        var scanner = JSONScanner(body)
        scanner.skipWhitespace()
        guard scanner.consume(UInt8(ascii: "{")) else { return nil }
        while true {
            scanner.skipWhitespace()
            guard let key = scanner.skipStringTrusting() else { return nil }
            scanner.skipWhitespace()
            guard scanner.consume(UInt8(ascii: ":")) else { return nil }
            scanner.skipWhitespace()
            if isBatch(body, key), scanner.offset < body.count, body[scanner.offset] == UInt8(ascii: "[") {
                var summary = Summary()
                let closed = scanner.skipArrayTrusting { element in
                    summary.events += 1
                    summary.largestEvent = max(summary.largestEvent, element.count)
                }
                return closed ? summary : nil
            }
            guard scanner.skipValueTrusting() else { return nil }
            scanner.skipWhitespace()
            guard scanner.consume(UInt8(ascii: ",")) else { return nil }
        }
    }

    /// Whether the key at `key` is `batch` (written without escapes).
    private static func isBatch(_ body: UnsafeBufferPointer<UInt8>, _ key: Range<Int>) -> Bool {
        key.count == 5 && body[key].elementsEqual("batch".utf8)
    }
}
