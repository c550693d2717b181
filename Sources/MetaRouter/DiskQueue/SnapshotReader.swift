import JSONCore

/// Reads a MetaRouter SDK offline snapshot, `{"version":1,"events":[...]}` (`queue.v1.json`,
/// `overflow.v1.json`), as a stream: the file is never held whole, only the element being read.
///
/// The SDK's encoder writes the two top-level keys in either order, so both are accepted. Each
/// element of `events` is delimited by its brackets and quotes, then handed over as raw bytes:
/// an element that is delimited but not valid JSON is still handed over (the caller rejects it
/// with its bytes), and reading goes on with the next one. The walk stops at a **break**: the
/// file ends before an element or the top-level object is complete (a truncated capture), or
/// the top-level structure itself is damaged. Everything from the break to the end of the file
/// is handed to `onTail`, in pieces, so the caller can keep it whole.
///
/// The one snapshot reader of the package: ``DiskQueue`` and mr-replay's snapshot input both
/// use it.
package struct SnapshotReader {
    /// The snapshot versions this reader understands.
    package static let supportedVersions = [1]

    /// What the top-level `version` member held.
    package enum Version: Sendable, Equatable, CustomStringConvertible {
        /// No `version` member was read (none in the file, or it stood after a break).
        case missing
        /// An integer.
        case integer(Int)
        /// Any other JSON value, as its text (`"1"`, `1.5`, `null`).
        case other(String)

        /// The version as a person reads it.
        package var description: String {
            switch self {
            case .missing: "no version"
            case .integer(let v): "version \(v)"
            case .other(let text): "version \(text.prefix(40))"
            }
        }
    }

    /// What a walk found.
    package struct Summary: Sendable, Equatable {
        /// The `version` member.
        package var version = Version.missing
        /// Elements of `events` handed to `onEvent`.
        package var elements = 0
        /// Where the readable part ends, when the file is damaged or cut short.
        package var breakOffset: UInt64?
        /// Why it breaks there.
        package var breakReason: String?
        /// Bytes from the break to the end of the file (handed to `onTail`).
        package var tailBytes: UInt64 = 0
        /// The size of the whole stream.
        package var totalBytes: UInt64 = 0
        /// Whether the stream held nothing but whitespace.
        package var isBlank = true
        /// Whether an `events` array was found.
        package var hasEventsArray = false
        /// Whether something other than whitespace follows a complete top-level object (the file
        /// is then not one snapshot: NDJSON whose first line looks like one, for example).
        package var hasTrailingContent = false

        /// Whether the file is damaged (it has a break).
        package var isDamaged: Bool { breakOffset != nil }

        /// Whether the events can be read as a supported version. A damaged file whose version
        /// was not reached (it stood after the break, or the file is not JSON at all) is read as
        /// version 1, the only one: what is complete is replayed and the rest dead-lettered.
        package var isSupported: Bool {
            switch version {
            case .integer(let v): SnapshotReader.supportedVersions.contains(v)
            case .missing: isDamaged
            case .other: false
            }
        }

        /// Why the snapshot cannot be read, or nil when it can (a blank file can: it is empty).
        package var unsupportedReason: String? {
            if isBlank || isSupported { return nil }
            let supported = SnapshotReader.supportedVersions.map(String.init).joined(separator: ", ")
            if case .missing = version {
                return "it has no \"version\" (supported versions: \(supported))"
            }
            return "it has \(version); this mr-replay reads version \(supported)"
        }
    }

    /// One element of `events`, valid only during the call.
    package struct Element {
        /// The element's bytes.
        package let bytes: UnsafeBufferPointer<UInt8>
        /// Its 0-based position in `events`.
        package let index: Int
        /// Where it starts and ends in the stream.
        package let startOffset: UInt64
        package let endOffset: UInt64
    }

    private let source: (UnsafeMutableRawBufferPointer) throws -> Int
    /// Bytes `[base, base + storage.count)` of the stream.
    private var storage: [UInt8] = []
    private var base = 0
    private var eof = false
    /// Where the source writes, before the bytes join ``storage``.
    private var scratch: [UInt8] = []
    private var summary = Summary()
    static let readSize = 256 * 1024
    static let firstReadSize = 4 * 1024

    /// A reader over `source`, which fills the buffer it is given and returns the count (0 at
    /// the end of the stream).
    package init(source: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) {
        self.source = source
    }

    /// A reader over bytes in memory.
    package init(bytes: [UInt8]) {
        var offset = 0
        self.init { buffer in
            let n = min(buffer.count, bytes.count - offset)
            // `bytes` has `n` bytes from `offset` on, and `buffer` has room for `n`.
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
            offset += n
            return n
        }
    }

    /// Walks the snapshot: `onEvent` for each element of `events` in order (return false to stop
    /// early), then `onTail` with the bytes from the break on, if there is one.
    package mutating func walk(
        onEvent: (Element) throws -> Bool, onTail: (UnsafeBufferPointer<UInt8>) throws -> Void = { _ in }
    ) throws -> Summary {
        summary = Summary()
        if let stop = try walkObject(onEvent) {
            switch stop {
            case .stoppedEarly: return summary
            case .broken(let at, let why): try finishBroken(at: at, why, onTail)
            }
        }
        return summary
    }

    /// Why a walk ended before the end of the object.
    private enum Stop: Error {
        case stoppedEarly
        case broken(Int, String)
    }

    private mutating func walkObject(_ onEvent: (Element) throws -> Bool) throws -> Stop? {
        guard let first = try skipWhitespace(0) else {
            summary.totalBytes = UInt64(base + storage.count)
            return nil
        }
        summary.isBlank = false
        guard byte(first) == UInt8(ascii: "{") else { return .broken(first, "the file does not start with a JSON object") }
        guard var pos = try skipWhitespace(first + 1) else { return .broken(first, "the file ends after '{'") }
        if byte(pos) != UInt8(ascii: "}") {
            while true {
                if let stop = try member(at: pos, onEvent) { return stop }
                pos = memberEndOffset
                guard let next = try skipWhitespace(pos) else { return .broken(pos, "the file ends inside the top-level object") }
                if byte(next) == UInt8(ascii: "}") {
                    pos = next
                    break
                }
                guard byte(next) == UInt8(ascii: ","), let key = try skipWhitespace(next + 1) else {
                    return .broken(next, "expected ',' or '}' after a top-level member")
                }
                pos = key
            }
        }
        // Only whitespace may follow the object.
        if let trailing = try skipWhitespace(pos + 1) {
            summary.hasTrailingContent = true
            return .broken(trailing, "bytes after the top-level object")
        }
        summary.totalBytes = UInt64(base + storage.count)
        return nil
    }

    /// Where the last member read by ``member(at:_:)`` ended.
    private var memberEndOffset = 0

    /// Reads one top-level member starting at its key.
    private mutating func member(at pos: Int, _ onEvent: (Element) throws -> Bool) throws -> Stop? {
        guard byte(pos) == UInt8(ascii: "\"") else { return .broken(pos, "expected a member name in the top-level object") }
        guard let keyEnd = try delimit(pos) else { return .broken(pos, "the file ends inside a member name") }
        let key = Array(storage[(pos + 1 - base)..<(keyEnd - 1 - base)])
        guard let colon = try skipWhitespace(keyEnd), byte(colon) == UInt8(ascii: ":"),
            let value = try skipWhitespace(colon + 1)
        else { return .broken(pos, "a top-level member without a value") }
        if key == Array("events".utf8), byte(value) == UInt8(ascii: "[") {
            summary.hasEventsArray = true
            return try walkEvents(open: value, onEvent)
        }
        guard let end = try delimit(value) else { return .broken(pos, "the file ends inside a top-level member") }
        guard isValidJSON(value..<end) else { return .broken(pos, "a top-level member is not valid JSON") }
        if key == Array("version".utf8) { summary.version = version(value..<end) }
        memberEndOffset = end
        return nil
    }

    /// Hands over each element of the `events` array that opens at `open`.
    private mutating func walkEvents(open: Int, _ onEvent: (Element) throws -> Bool) throws -> Stop? {
        guard var pos = try skipWhitespace(open + 1) else { return .broken(open + 1, "the file ends inside \"events\"") }
        if byte(pos) == UInt8(ascii: "]") {
            memberEndOffset = pos + 1
            return nil
        }
        while true {
            guard let end = try delimit(pos) else {
                return .broken(pos, "the file ends inside event \(summary.elements + 1) of \"events\"")
            }
            // Safe: `pos..<end` was delimited inside the buffered window `base..<base + storage.count`,
            // and `Element.bytes` is documented valid only during `onEvent`, so the pointer does not escape.
            let keepGoing = try storage.withUnsafeBufferPointer { buf in
                try onEvent(
                    Element(
                        bytes: UnsafeBufferPointer(rebasing: buf[(pos - base)..<(end - base)]), index: summary.elements,
                        startOffset: UInt64(pos), endOffset: UInt64(end)))
            }
            summary.elements += 1
            if !keepGoing { return .stoppedEarly }
            discard(before: end)
            guard let next = try skipWhitespace(end) else { return .broken(end, "the file ends inside \"events\"") }
            if byte(next) == UInt8(ascii: "]") {
                memberEndOffset = next + 1
                return nil
            }
            guard byte(next) == UInt8(ascii: ","), let element = try skipWhitespace(next + 1) else {
                return .broken(next, "expected ',' or ']' after event \(summary.elements) of \"events\"")
            }
            pos = element
        }
    }

    /// Records the break and hands the rest of the stream to `onTail`.
    private mutating func finishBroken(at offset: Int, _ why: String, _ onTail: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        summary.breakOffset = UInt64(offset)
        summary.breakReason = why
        var from = offset
        while true {
            if from < base + storage.count {
                summary.tailBytes += UInt64(base + storage.count - from)
                // Safe: `from` is inside the buffered window (checked above); `onTail` may read the
                // bytes only during the call, so the pointer does not escape the closure.
                try storage.withUnsafeBufferPointer { try onTail(UnsafeBufferPointer(rebasing: $0[(from - base)...])) }
                from = base + storage.count
                discard(before: from)
            }
            if try eof || !fill() { break }
        }
        summary.totalBytes = UInt64(base + storage.count)
    }

    // MARK: - Buffer

    @inline(__always) private func byte(_ offset: Int) -> UInt8 { storage[offset - base] }

    /// Reads more of the stream into ``storage``; false at its end.
    private mutating func fill() throws -> Bool {
        guard !eof else { return false }
        // The read buffer starts small (most queues are) and doubles while reads fill it.
        if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: Self.firstReadSize) }
        // The source fills at most `scratch.count` bytes of memory bound to UInt8 (an array's).
        let n = try scratch.withUnsafeMutableBytes { try source($0) }
        precondition(n >= 0 && n <= scratch.count, "a snapshot source returned \(n) for a \(scratch.count)-byte buffer")
        storage.append(contentsOf: scratch[..<n])
        if n == scratch.count, scratch.count < Self.readSize {
            scratch = [UInt8](repeating: 0, count: scratch.count * 2)
        }
        if n == 0 { eof = true }
        return n > 0
    }

    /// Forgets the bytes before `offset` once enough of them have accumulated.
    private mutating func discard(before offset: Int) {
        let count = offset - base
        guard count > 0, count >= storage.count || count >= 1 << 20 else { return }
        storage.removeFirst(count)
        base = offset
    }

    /// The first non-whitespace offset at or after `offset`, or nil at the end of the stream.
    private mutating func skipWhitespace(_ offset: Int) throws -> Int? {
        var k = offset
        while true {
            while k < base + storage.count {
                switch storage[k - base] {
                case 0x20, 0x0A, 0x0D, 0x09: k += 1
                default: return k
                }
            }
            guard try fill() else { return nil }
        }
    }

    /// Where the value starting at `start` ends, found by JSONCore's trusting skim (its brackets
    /// and quotes, not by validating it), or nil when the stream ends first. A scalar ends before
    /// the next `,`, `]`, `}` or whitespace. When the buffered window ends inside the value, more
    /// is read and the value is skimmed again from its start.
    private mutating func delimit(_ start: Int) throws -> Int? {
        let opening = byte(start)
        let scalar = opening != UInt8(ascii: "\"") && opening != UInt8(ascii: "{") && opening != UInt8(ascii: "[")
        while true {
            let windowEnd = base + storage.count
            // Safe: `start` is inside the buffered window, and the scanner lives only in the closure.
            let end: Int? = storage.withUnsafeBufferPointer { buf in
                var scanner = JSONScanner(UnsafeBufferPointer(rebasing: buf[(start - base)...]))
                return scanner.skipValueTrusting() ? start + scanner.offset : nil
            }
            // A closed string or container is whole; a scalar that reaches the window's end may go on.
            if let end, !scalar || end < windowEnd { return end }
            guard try fill() else { return end }
        }
    }

    private func isValidJSON(_ range: Range<Int>) -> Bool {
        // Safe: callers pass a range inside the buffered window, and the scanner lives only in the closure.
        storage.withUnsafeBufferPointer { buf in
            var scanner = JSONScanner(UnsafeBufferPointer(rebasing: buf[(range.lowerBound - base)..<(range.upperBound - base)]))
            guard (try? scanner.scanValue()) != nil else { return false }
            return scanner.offset == range.count
        }
    }

    private func version(_ range: Range<Int>) -> Version {
        let text = String(decoding: storage[(range.lowerBound - base)..<(range.upperBound - base)], as: UTF8.self)
        if text.utf8.allSatisfy({ (48...57).contains($0) || $0 == UInt8(ascii: "-") }), let v = Int(text) { return .integer(v) }
        return .other(text)
    }
}
