import JSONCore

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
        while j >= 0, isWhitespace(bytes[j]) { j -= 1 }
        return (max(i, 0), j >= 0 && bytes[j] == UInt8(ascii: "{"))
    }

    static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }

    /// The body for `events`, stamped with `sentAt` (an ISO-8601 string with milliseconds).
    func body(_ events: some Collection<EncodedEvent>, sentAt: String) -> [UInt8] {
        body(events.map { SpliceableEvent(bytes: $0.bytes) }, sentAt: sentAt)
    }

    /// The body for `events`, stamped with `sentAt` (an ISO-8601 string with milliseconds).
    func body(_ events: [some SpliceableBytes], sentAt: String) -> [UInt8] {
        var quotedSentAt: [UInt8] = []
        quotedSentAt.reserveCapacity(Self.sentAtValueLength)
        quotedSentAt.append(UInt8(ascii: "\""))
        quotedSentAt.append(contentsOf: sentAt.utf8)
        quotedSentAt.append(UInt8(ascii: "\""))
        var out: [UInt8] = []
        var total = Self.prefix.count + Self.middle.count + quotedSentAt.count + 1 + events.count
        for i in events.indices {
            total += events[i].range.count + Self.sentAtKey.count + quotedSentAt.count + writeKeyMember.count + 1
        }
        out.reserveCapacity(total)
        out.append(contentsOf: Self.prefix)
        for i in events.indices {
            if i > events.startIndex { out.append(UInt8(ascii: ",")) }
            let (close, empty) = events[i].closingBrace
            // Safe: `range` lies inside `storage` (checked when the event was queued: an
            // `EncodedEvent`'s whole array, or a chunk entry checked by `submit(chunk:)`'s
            // precondition), `close` is inside `range`, and no pointer leaves the closure.
            events[i].storage.withUnsafeBufferPointer { all in
                let b = UnsafeBufferPointer(rebasing: all[events[i].range])
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[..<close]))
                if !empty { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: Self.sentAtKey)
                out.append(contentsOf: quotedSentAt)
                out.append(contentsOf: writeKeyMember)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[close...]))
            }
        }
        out.append(contentsOf: Self.middle)
        out.append(contentsOf: quotedSentAt)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

/// An event's bytes (`storage[range]`, possibly shared with other events) plus where its
/// closing brace is, so the encoder splices without searching.
protocol SpliceableBytes {
    var storage: [UInt8] { get }
    var range: Range<Int> { get }
    /// As returned by ``BatchEncoder/closingBrace(of:)`` for the event's bytes (from `range.lowerBound`).
    var closingBrace: (index: Int, empty: Bool) { get }
}

/// Bytes whose closing brace is found when they are wrapped.
struct SpliceableEvent: SpliceableBytes {
    let storage: [UInt8]
    let range: Range<Int>
    let closingBrace: (index: Int, empty: Bool)
    init(bytes: [UInt8]) {
        storage = bytes
        range = 0..<bytes.count
        closingBrace = BatchEncoder.closingBrace(of: bytes)
    }
}
