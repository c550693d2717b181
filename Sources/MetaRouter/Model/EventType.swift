import JSONCore
@_spi(PerLine) import MetaRouterDelivery

/// The six event types of the Segment/MetaRouter spec.
public enum EventType: String, Sendable, CaseIterable, Codable {
    case track, identify, group, screen, page, alias

    /// The type named by the JSON string token `buf[value]` (with its quotes), or nil for any
    /// other string. Read from the bytes, without making a String unless the name is escaped.
    @_spi(PerLine) public init?(jsonString buf: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) {
        let inner = (value.lowerBound + 1)..<(value.upperBound - 1)
        if buf[inner].contains(UInt8(ascii: "\\")) {
            // Escaped spelling (rare): compare the decoded text.
            var decoded = JSONStrings.decode(buf, inner, hasEscapes: true)
            guard let found = decoded.withUTF8({ EventType.named($0, 0..<$0.count) }) else { return nil }
            self = found
        } else {
            guard let found = EventType.named(buf, inner) else { return nil }
            self = found
        }
    }

    /// The type whose name is exactly `bytes[r]`.
    private static func named(_ bytes: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> EventType? {
        func eq(_ word: StaticString) -> Bool { ByteWords.equal(UnsafeBufferPointer(rebasing: bytes[r]), word) }
        switch r.count {
        case 4: return eq("page") ? .page : nil
        case 5: return eq("track") ? .track : eq("group") ? .group : eq("alias") ? .alias : nil
        case 6: return eq("screen") ? .screen : nil
        case 8: return eq("identify") ? .identify : nil
        default: return nil
        }
    }
}
