import Foundation
import JSONCore
import MetaRouter

/// Enriched events rendered back to back into one growing buffer, shared by the code that
/// enriches lines and the code that consumes the events (a dry run's output, a run's chunk).
/// A class so both sides can reach it while a walk is under way; used by one thread at a time.
final class EventBuffer {
    /// The rendered events, back to back (see ``LineResult/event(range:laneKey:)``).
    var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }
}

/// What became of one line on the hot path: like ``EnrichResult``, but the event's bytes are in
/// an ``EventBuffer`` and its identity is a hash, so no array or String is made per event.
enum LineResult {
    /// A correct, enriched event at `range` of the buffer. `laneKey` is the FNV-1a hash of its
    /// anonymousId's bytes: what the engine's lanes and `--shard` hash the ordering key to.
    case event(range: Range<Int>, laneKey: UInt64)
    /// An empty or whitespace-only line.
    case blank
    /// A rejected line.
    case deadLetter(reason: String, detail: String)
    /// An event settled without being sent, by a rule.
    case skipped(SkipReason)
}

extension EnrichResult {
    /// The String-facing form of a hot-path result whose event is `rendered[range]`: the bytes
    /// copied, and the ordering key read back from them (every rendered event has its final
    /// anonymousId). Off the hot path: `Enricher.process` and `LineWalker.walk` only.
    init(_ result: LineResult, rendered: [UInt8]) {
        switch result {
        case .blank: self = .blank
        case .deadLetter(let reason, let detail): self = .deadLetter(reason: reason, detail: detail)
        case .skipped(let reason): self = .skipped(reason)
        case .event(let range, _):
            let bytes = Array(rendered[range])
            let key = bytes.withUnsafeBufferPointer { buf in
                (try? ObjectLayout.scanDocument(buf)).flatMap { IdRef($0.member("anonymousId", in: buf), buf)?.string(buf) }
            }
            self = .event(bytes: bytes, orderingKey: key)
        }
    }
}

/// An id read from a line: its bytes in the line when written without escapes (the usual
/// case, nothing copied), otherwise decoded into an array of its own.
enum IdRef {
    /// The unescaped id is `line[range]` (a string's content or a number's text).
    case inLine(Range<Int>)
    /// The id's bytes.
    case bytes([UInt8])

    /// The id read from member `m` (a non-empty string, or a number as its text), if it holds one.
    init?(_ m: JSONMember?, _ buf: UnsafeBufferPointer<UInt8>) {
        guard let m else { return nil }
        switch m.kind {
        case .number:
            self = .inLine(m.value)
        case .string where m.value.count > 2:
            let inner = (m.value.lowerBound + 1)..<(m.value.upperBound - 1)
            if memchr(buf.baseAddress! + inner.lowerBound, Int32(UInt8(ascii: "\\")), inner.count) == nil {
                self = .inLine(inner)
            } else {
                var s = JSONStrings.decode(buf, inner, hasEscapes: true)
                self = .bytes(s.withUTF8 { Array($0) })
            }
        default:
            return nil
        }
    }

    /// Calls `body` with the id's bytes (`buf` is the line the id was read from).
    @inline(__always)
    func withBytes<R>(_ buf: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch self {
        case .inLine(let r): return try body(UnsafeBufferPointer(rebasing: buf[r]))
        case .bytes(let b): return try b.withUnsafeBufferPointer(body)
        }
    }

    /// The id as a String (for the String-facing API).
    func string(_ buf: UnsafeBufferPointer<UInt8>) -> String {
        withBytes(buf) { String(decoding: $0, as: UTF8.self) }
    }

    /// FNV-1a of the id's bytes: the same value as `FNV1a.hash(id.utf8)`.
    func laneKey(_ buf: UnsafeBufferPointer<UInt8>) -> UInt64 {
        withBytes(buf) { FNV1a.hash($0) }
    }
}
