import Foundation
import JSONCore

/// `enrichment.identity.logout_events` as bytes, for the per-line check of a `track` event's
/// name: a length filter, then one `memcmp` per name of that length. Names are compared as
/// UTF-8 bytes, exactly as written in the configuration (no Unicode normalization).
struct LogoutEvents {
    /// The names' UTF-8 bytes.
    private let names: [[UInt8]]
    /// Bit `n` is set when some name has `n` bytes (`n` < 64); longer names set bit 63.
    private let lengths: UInt64

    init(_ names: [String]) {
        self.names = names.map { Array($0.utf8) }
        lengths = self.names.reduce(0) { $0 | Self.bit($1.count) }
    }

    /// Whether no event name is configured (then nothing is ever compared).
    var isEmpty: Bool { names.isEmpty }

    @inline(__always)
    private static func bit(_ count: Int) -> UInt64 { 1 << UInt64(min(count, 63)) }

    /// Whether the JSON string `m` (a `track` event's `event`) is one of the names.
    @inline(__always)
    func contains(_ m: JSONMember, _ buf: UnsafeBufferPointer<UInt8>) -> Bool {
        let inner = (m.value.lowerBound + 1)..<(m.value.upperBound - 1)
        // `inner` lies inside `buf` (a scanned string's content).
        if memchr(buf.baseAddress! + inner.lowerBound, Int32(UInt8(ascii: "\\")), inner.count) != nil {
            var decoded = JSONStrings.decode(buf, inner, hasEscapes: true)
            return decoded.withUTF8 { contains(bytes: $0) }
        }
        return contains(bytes: UnsafeBufferPointer(rebasing: buf[inner]))
    }

    /// Whether `bytes` are one of the names.
    @inline(__always)
    func contains(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lengths & Self.bit(bytes.count) != 0 else { return false }
        for name in names where name.count == bytes.count {
            // Both hold `bytes.count` (> 0: event names are non-empty) bytes.
            if name.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) }) == 0 { return true }
        }
        return false
    }
}
