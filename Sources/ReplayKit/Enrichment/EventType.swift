import JSONCore

/// The six Segment event types, read from a `type` string value without creating a String.
enum EventType: Equatable {
    case track, identify, page, screen, group, alias

    /// The type named by the JSON string at `value` (with quotes), or nil for any other string.
    init?(_ buf: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) {
        let inner = (value.lowerBound + 1)..<(value.upperBound - 1)
        if buf[inner].contains(UInt8(ascii: "\\")) {
            // Escaped spelling (rare): compare the decoded text.
            var s = JSONStrings.decode(buf, inner, hasEscapes: true)
            let found = s.withUTF8 { EventType.match($0, 0..<$0.count) }
            guard let found else { return nil }
            self = found
            return
        }
        guard let found = EventType.match(buf, inner) else { return nil }
        self = found
    }

    private static func match(_ bytes: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> EventType? {
        func eq(_ word: StaticString) -> Bool {
            guard r.count == word.utf8CodeUnitCount else { return false }
            let w = word.utf8Start
            for k in 0..<r.count where bytes[r.lowerBound + k] != w[k] { return false }
            return true
        }
        switch r.count {
        case 4: return eq("page") ? .page : nil
        case 5: return eq("track") ? .track : eq("group") ? .group : eq("alias") ? .alias : nil
        case 6: return eq("screen") ? .screen : nil
        case 8: return eq("identify") ? .identify : nil
        default: return nil
        }
    }
}
