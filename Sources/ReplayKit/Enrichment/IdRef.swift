import Foundation
import JSONCore
@_spi(PerLine) import MetaRouterDelivery

/// An id read from a line: its bytes in the line when written without escapes (the usual
/// case, nothing copied), otherwise decoded into an array of its own; or an id the line was
/// given (a derived anonymousId), in its preparer's memory until the next line.
package enum IdRef {
    /// The unescaped id is `line[range]` (a string's content or a number's text).
    case inLine(Range<Int>)
    /// The id's bytes.
    case bytes([UInt8])
    /// The id's bytes, in memory valid while the line is prepared and its event is used (a
    /// ``DerivedIdBuffer``, until its next derivation, made for the next line).
    case external(UnsafeBufferPointer<UInt8>)

    /// The id read from member `m` (a non-empty string, or a number as its text), if it holds one.
    package init?(_ m: JSONMember?, _ buf: UnsafeBufferPointer<UInt8>) {
        guard let written = Self.written(m) else { return nil }
        // `written` lies inside `buf` (a scanned member's text), so the pointer and the
        // `written.count` bytes memchr reads stay within the line's buffer. A number has no `\`.
        if memchr(buf.baseAddress! + written.lowerBound, Int32(UInt8(ascii: "\\")), written.count) == nil {
            self = .inLine(written)
        } else {
            var s = JSONStrings.decode(buf, written, hasEscapes: true)
            self = .bytes(s.withUTF8 { Array($0) })
        }
    }

    /// Where member `m`'s id is written in its line, escapes not decoded: a non-empty string's
    /// content or a number's text; nil when `m` holds no id.
    @inline(__always)
    static func written(_ m: JSONMember?) -> Range<Int>? {
        guard let m else { return nil }
        switch m.kind {
        case .number: return m.value
        case .string where m.value.count > 2: return (m.value.lowerBound + 1)..<(m.value.upperBound - 1)
        default: return nil
        }
    }

    /// Calls `body` with the id's bytes (`buf` is the line the id was read from).
    @inline(__always)
    func withBytes<R>(_ buf: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch self {
        case .inLine(let r): return try body(UnsafeBufferPointer(rebasing: buf[r]))
        case .bytes(let b): return try b.withUnsafeBufferPointer(body)
        case .external(let b): return try body(b)
        }
    }

    /// The id as a String (off the hot path: the already-delivered check, tests).
    package func string(_ buf: UnsafeBufferPointer<UInt8>) -> String {
        withBytes(buf) { String(decoding: $0, as: UTF8.self) }
    }

    /// FNV-1a of the id's bytes: the same value as `FNV1a.hash(id.utf8)`.
    func laneKey(_ buf: UnsafeBufferPointer<UInt8>) -> UInt64 {
        withBytes(buf) { FNV1a.hash($0) }
    }
}
