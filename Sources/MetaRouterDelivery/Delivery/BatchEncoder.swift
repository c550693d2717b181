import JSONCore
import NIOCore

/// Builds the request body `{"batch":[e1,...],"sentAt":"..."}`, splicing `sentAt` and `writeKey`
/// before each event's closing `}` without re-encoding the event, and computes sizes exactly.
struct BatchEncoder: Sendable {
    /// `,"writeKey":"<key>"` with the key JSON-escaped.
    let writeKeyMember: [UInt8]

    static let prefix = Array(#"{"batch":["#.utf8)
    static let middle = Array(#"],"sentAt":"#.utf8)
    static let sentAtKey = Array(#""sentAt":"#.utf8)
    /// Length of a quoted `sentAt` timestamp: `"2026-11-22T06:50:53.123Z"`.
    static let sentAtValueLength = 26

    init(writeKey: String) {
        var m = Array(#","writeKey":"#.utf8)
        JSONStrings.appendQuoted(writeKey, to: &m)
        writeKeyMember = m
    }

    /// Bytes added to one event: `"sentAt":"…"` + `,"writeKey":"…"`, plus a comma unless the object is empty.
    func spliceLength(emptyObject: Bool) -> Int {
        Self.sentAtKey.count + Self.sentAtValueLength + writeKeyMember.count + (emptyObject ? 0 : 1)
    }

    /// The size of `event` as it is sent.
    func sentSize(of event: EncodedEvent) -> Int {
        sentSize(count: event.bytes.count, closingBrace: Self.closingBrace(of: event.bytes))
    }

    /// The size as sent of an object of `count` bytes whose closing brace was found with
    /// ``closingBrace(of:)``.
    func sentSize(count: Int, closingBrace: (index: Int, empty: Bool)) -> Int {
        count + spliceLength(emptyObject: closingBrace.empty)
    }

    /// The exact body size for events whose sent sizes sum to `eventSizes`.
    static func bodySize(eventSizes: Int, count: Int) -> Int {
        Self.prefix.count + eventSizes + max(count - 1, 0) + Self.middle.count + Self.sentAtValueLength + 1
    }

    /// Where the object's closing brace is, and whether the object has no members.
    static func closingBrace(of bytes: [UInt8]) -> (index: Int, empty: Bool) {
        // Safe: the pointer is only read inside the closure, within the array's own count.
        bytes.withUnsafeBufferPointer { closingBrace(of: $0) }
    }

    /// Where the object's closing brace is (from the start of `bytes`), and whether the object
    /// has no members.
    static func closingBrace(of bytes: UnsafeBufferPointer<UInt8>) -> (index: Int, empty: Bool) {
        var i = bytes.count - 1
        while i >= 0, bytes[i] != UInt8(ascii: "}") { i -= 1 }
        var j = i - 1
        while j >= 0, bytes[j].isJSONWhitespace { j -= 1 }
        return (max(i, 0), j >= 0 && bytes[j] == UInt8(ascii: "{"))
    }

    /// Whether `bytes` start with `{`, end with `}` and do not read `{}` (the checks of a chunk
    /// entry, see ``DeliveryEngine/submit(chunk:)``: the first and last bytes only).
    static func isOneNonEmptyObject(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "{"), bytes[bytes.count - 1] == UInt8(ascii: "}") else { return false }
        var j = bytes.count - 2
        while j > 0, bytes[j].isJSONWhitespace { j -= 1 }
        return j > 0
    }

    /// The body for `events`, stamped with `sentAt` (an ISO-8601 string with milliseconds).
    func body(_ events: some Collection<EncodedEvent>, sentAt: String) -> [UInt8] {
        body(events.map { SpliceableEvent(bytes: $0.bytes) }, sentAt: sentAt)
    }

    /// The body for `events`, stamped with `sentAt` (an ISO-8601 string with milliseconds).
    func body(_ events: [some SpliceableBytes], sentAt: String) -> [UInt8] {
        let size = bodySize(events)
        return [UInt8](unsafeUninitializedCapacity: size) { memory, initialized in
            // Safe: the writer stays inside the `size` bytes of `memory` (it checks every write)
            // and initializes exactly `size` of them (checked after), which is what we report.
            var writer = RawBodyWriter(UnsafeMutableRawBufferPointer(memory))
            write(events, sentAt: sentAt, into: &writer)
            precondition(writer.count == size, "the body is not its computed size")
            initialized = size
        }
    }

    /// Appends the body for `events`, stamped with `sentAt`, to `buffer`, in one write of its
    /// exact size.
    func write(_ events: [some SpliceableBytes], sentAt: String, into buffer: inout ByteBuffer) {
        let size = bodySize(events)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { memory in
            // Safe: the writer stays inside the first `size` bytes of `memory` (at least `size`
            // are writable; it checks every write), and writes all of them (checked after).
            var writer = RawBodyWriter(UnsafeMutableRawBufferPointer(rebasing: memory[..<size]))
            write(events, sentAt: sentAt, into: &writer)
            precondition(writer.count == size, "the body is not its computed size")
            return size
        }
    }

    /// The exact size of the body for `events` (``bodySize(eventSizes:count:)`` from their bytes).
    func bodySize(_ events: [some SpliceableBytes]) -> Int {
        var sizes = 0
        for i in events.indices {
            sizes += sentSize(count: events[i].range.count, closingBrace: events[i].closingBrace)
        }
        return Self.bodySize(eventSizes: sizes, count: events.count)
    }

    /// Writes the body for `events`, stamped with `sentAt`, with `out`: each event's bytes are
    /// copied once, around the spliced members.
    private func write(_ events: [some SpliceableBytes], sentAt: String, into out: inout RawBodyWriter) {
        let quotedSentAt = Self.quoted(sentAt)
        out.appendBytes(Self.prefix)
        for i in events.indices {
            if i > events.startIndex { out.appendByte(UInt8(ascii: ",")) }
            let (close, empty) = events[i].closingBrace
            // Safe: `range` lies inside `storage` (checked when the event was queued: an
            // `EncodedEvent`'s whole array, or a chunk entry checked by `submit(chunk:)`'s
            // precondition), `close` is inside `range`, and no pointer leaves the closure.
            events[i].storage.withUnsafeBufferPointer { all in
                let b = UnsafeBufferPointer(rebasing: all[events[i].range])
                if events[i].checkBytes {
                    precondition(
                        Self.isOneNonEmptyObject(b),
                        "an EventChunk entry (\(events[i].range)) is not exactly one non-empty JSON object of its storage")
                }
                out.appendBytes(UnsafeBufferPointer(rebasing: b[..<close]))
                if !empty { out.appendByte(UInt8(ascii: ",")) }
                out.appendBytes(Self.sentAtKey)
                out.appendBytes(quotedSentAt)
                out.appendBytes(writeKeyMember)
                out.appendBytes(UnsafeBufferPointer(rebasing: b[close...]))
            }
        }
        out.appendBytes(Self.middle)
        out.appendBytes(quotedSentAt)
        out.appendByte(UInt8(ascii: "}"))
    }

    /// Overwrites every `sentAt` value of `body`, a body written by ``write(_:sentAt:into:)`` for
    /// the same `events` (starting at the buffer's reader index), with `sentAt`: a retry of the
    /// same events is restamped in place, without copying their bytes again.
    func restamp(_ body: inout ByteBuffer, events: [some SpliceableBytes], sentAt: String) {
        let quotedSentAt = Self.quoted(sentAt)
        precondition(quotedSentAt.count == Self.sentAtValueLength, "sentAt must be an ISO-8601 time with milliseconds")
        var at = body.readerIndex + Self.prefix.count
        for i in events.indices {
            if i > events.startIndex { at += 1 }
            let (close, empty) = events[i].closingBrace
            body.setBytes(quotedSentAt, at: at + close + (empty ? 0 : 1) + Self.sentAtKey.count)
            at += sentSize(count: events[i].range.count, closingBrace: events[i].closingBrace)
        }
        body.setBytes(quotedSentAt, at: at + Self.middle.count)
    }

    /// `"<sentAt>"`.
    private static func quoted(_ sentAt: String) -> [UInt8] {
        var quoted: [UInt8] = []
        quoted.reserveCapacity(Self.sentAtValueLength)
        quoted.append(UInt8(ascii: "\""))
        quoted.append(contentsOf: sentAt.utf8)
        quoted.append(UInt8(ascii: "\""))
        return quoted
    }
}

/// Writes a body into memory reserved for it, checking every write against the memory's end.
struct RawBodyWriter {
    private let memory: UnsafeMutableRawBufferPointer
    /// How many bytes were written (from the start of the memory).
    private(set) var count = 0

    init(_ memory: UnsafeMutableRawBufferPointer) { self.memory = memory }

    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= memory.count - count, "the body is larger than its computed size")
        // Safe: the precondition keeps the copy inside `memory`; `bytes` is valid for the call.
        UnsafeMutableRawBufferPointer(rebasing: memory[count..<(count + bytes.count)]).copyMemory(from: UnsafeRawBufferPointer(bytes))
        count += bytes.count
    }

    mutating func appendBytes(_ bytes: [UInt8]) {
        // Safe: the pointer is only used inside the closure, for the array's own count.
        bytes.withUnsafeBufferPointer { appendBytes($0) }
    }

    mutating func appendByte(_ byte: UInt8) {
        precondition(count < memory.count, "the body is larger than its computed size")
        memory[count] = byte
        count += 1
    }
}

/// An event's bytes (`storage[range]`, possibly shared with other events) plus where its
/// closing brace is, so the encoder splices without searching.
protocol SpliceableBytes {
    var storage: [UInt8] { get }
    var range: Range<Int> { get }
    /// As returned by ``BatchEncoder/closingBrace(of:)`` for the event's bytes (from `range.lowerBound`).
    var closingBrace: (index: Int, empty: Bool) { get }
    /// Whether the encoder checks that the bytes are one non-empty object before writing them
    /// (a chunk entry's, whose closing brace was not searched for).
    var checkBytes: Bool { get }
}

/// Bytes whose closing brace is found when they are wrapped.
struct SpliceableEvent: SpliceableBytes {
    var checkBytes: Bool { false }
    let storage: [UInt8]
    let range: Range<Int>
    let closingBrace: (index: Int, empty: Bool)
    init(bytes: [UInt8]) {
        storage = bytes
        range = 0..<bytes.count
        closingBrace = BatchEncoder.closingBrace(of: bytes)
    }
}
