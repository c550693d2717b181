/// Reads the answers to requests sent one at a time on an HTTP/1.1 connection from the bytes it
/// receives, in any pieces: a pure state machine that the lean transport's connection handler
/// feeds (RFC 9112).
///
/// It gives each final answer's status, header fields and whether the connection may carry the
/// next request, once the answer's body has been read (and dropped). Interim `1xx` answers are
/// skipped. The body is framed as RFC 9112 §6.3 says for a response to a `POST`: none for `204`
/// and `304`; `chunked` when it is the final transfer coding (extensions and trailer fields
/// read and dropped); else a valid `Content-Length`; else the body runs to the connection's close,
/// which ``connectionClosed()`` ends. Anything else is a ``Malformed`` answer, after which the
/// connection must be closed.
struct HTTPResponseParser {
    /// A complete final answer.
    struct Answer: Equatable {
        var status: Int
        /// The header fields in order, names as sent.
        var headers: [HTTPField]
        /// Whether the connection may carry another request after it.
        var keepAlive: Bool
    }

    /// One header field.
    struct HTTPField: Equatable {
        var name: String
        var value: String
    }

    /// Why the bytes are not an answer this parser accepts.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The longest head (status line and fields) accepted.
    static let maxHeadBytes = 64 * 1024
    /// The longest chunk-size line or trailer field accepted.
    static let maxLineBytes = 8 * 1024

    private enum State {
        /// Reading the head of an answer.
        case head
        /// Reading a body of `remaining` more bytes.
        case fixed(remaining: Int)
        /// Reading a chunk-size line.
        case chunkSize
        /// Reading `remaining` bytes of chunk data, then its CRLF.
        case chunkData(remaining: Int)
        /// Reading the CRLF after a chunk's data.
        case chunkEnd
        /// Reading trailer fields, up to the empty line.
        case trailers
        /// Reading a body that runs to the connection's close.
        case untilClose
    }

    private var state = State.head
    /// The bytes of the head or line being read.
    private var pending: [UInt8] = []
    /// The answer whose body is being read.
    private var answer: Answer?

    /// Whether no answer has begun: nothing is owed and no byte of one was read.
    var isIdle: Bool {
        if case .head = state, pending.isEmpty { return true }
        return false
    }

    /// Reads from `bytes` up to the end of the first final answer they complete: returns it (nil
    /// when every byte was read and no answer is complete yet) and how many bytes were read (the
    /// bytes after the answer are not).
    mutating func read(_ bytes: UnsafeRawBufferPointer) throws(Malformed) -> (answer: Answer?, consumed: Int) {
        var input = Input(raw: bytes, at: 0)
        while input.readable > 0 {
            if let done = try step(&input) { return (done, input.at) }
        }
        return (nil, input.at)
    }

    /// The bytes being read and how far.
    private struct Input {
        let raw: UnsafeRawBufferPointer
        var at: Int
        var readable: Int { raw.count - at }
        /// The unread bytes.
        var rest: Slice<UnsafeRawBufferPointer> { raw[at...] }
    }

    /// The connection closed: the answer whose body ran to the close, if that is what was being
    /// read. Throws when an answer was cut short; nil when none had begun.
    mutating func connectionClosed() throws(Malformed) -> Answer? {
        switch state {
        case .untilClose:
            state = .head
            defer { answer = nil }
            return answer
        case .head where pending.isEmpty:
            return nil
        default:
            throw Malformed("the connection closed in the middle of an answer")
        }
    }

    /// Reads some of `bytes` in the current state; returns an answer when one ends.
    private mutating func step(_ bytes: inout Input) throws(Malformed) -> Answer? {
        switch state {
        case .head:
            guard let head = try takeHead(&bytes) else { return nil }
            return try begin(head)
        case .fixed(let remaining):
            let n = min(remaining, bytes.readable)
            bytes.at += n
            if n < remaining {
                state = .fixed(remaining: remaining - n)
                return nil
            }
            return finish()
        case .chunkSize:
            guard let line = try takeLine(&bytes) else { return nil }
            let size = try Self.chunkSize(line)
            state = size == 0 ? .trailers : .chunkData(remaining: size)
            return nil
        case .chunkData(let remaining):
            let n = min(remaining, bytes.readable)
            bytes.at += n
            state = n < remaining ? .chunkData(remaining: remaining - n) : .chunkEnd
            return nil
        case .chunkEnd:
            guard let line = try takeLine(&bytes) else { return nil }
            guard line.isEmpty else { throw Malformed("a chunk's data is longer than its size") }
            state = .chunkSize
            return nil
        case .trailers:
            guard let line = try takeLine(&bytes) else { return nil }
            return line.isEmpty ? finish() : nil
        case .untilClose:
            bytes.at = bytes.raw.count
            return nil
        }
    }

    /// The answer just read, and back to reading a head.
    private mutating func finish() -> Answer? {
        state = .head
        defer { answer = nil }
        return answer
    }

    /// Starts the answer with `head`: skips an interim one, else sets how its body is framed.
    /// Returns the answer when it has no body.
    private mutating func begin(_ parsed: HTTPAnswerHead) throws(Malformed) -> Answer? {
        if (100..<200).contains(parsed.status) {
            guard parsed.status != 101 else { throw Malformed("the server switched protocols (101), which was not asked for") }
            return nil  // interim: the final answer follows
        }
        answer = Answer(status: parsed.status, headers: parsed.fields, keepAlive: parsed.keepAlive)
        switch try parsed.framing() {
        case .none:
            return finish()
        case .length(let n):
            state = .fixed(remaining: n)
            return n == 0 ? finish() : nil
        case .chunked:
            state = .chunkSize
        case .untilClose:
            answer?.keepAlive = false
            state = .untilClose
        }
        return nil
    }

    /// Takes bytes up to and including the blank line that ends a head; returns the head, parsed,
    /// once complete.
    private mutating func takeHead(_ bytes: inout Input) throws(Malformed) -> HTTPAnswerHead? {
        // The last two bytes before the current one, carried over from what is already pending.
        var before2: UInt8 = pending.count >= 2 ? pending[pending.count - 2] : 0
        var before1: UInt8 = pending.last ?? 0
        var end: Int?
        for k in bytes.at..<bytes.raw.count {
            let b = bytes.raw[k]
            // An empty line ends the head: LF LF, or LF CR LF (a recipient may accept a bare LF).
            if b == UInt8(ascii: "\n"), before1 == UInt8(ascii: "\n") || (before1 == UInt8(ascii: "\r") && before2 == UInt8(ascii: "\n")) {
                end = k + 1
                break
            }
            (before2, before1) = (before1, b)
        }
        let taken = (end ?? bytes.raw.count) - bytes.at
        pending.append(contentsOf: bytes.raw[bytes.at..<(bytes.at + taken)])
        bytes.at += taken
        if pending.count > Self.maxHeadBytes { throw Malformed("the answer's head is over \(Self.maxHeadBytes) bytes") }
        guard end != nil else { return nil }
        // Parsed before the bytes are cleared: the head keeps none of them, so they are reused.
        defer { pending.removeAll(keepingCapacity: true) }
        return try HTTPAnswerHead(pending)
    }

    /// Takes one line (without its CRLF or LF) once complete.
    private mutating func takeLine(_ bytes: inout Input) throws(Malformed) -> [UInt8]? {
        guard let lf = bytes.rest.firstIndex(of: UInt8(ascii: "\n")) else {
            pending.append(contentsOf: bytes.rest)
            bytes.at = bytes.raw.count
            if pending.count > Self.maxLineBytes { throw Malformed("a chunk line is over \(Self.maxLineBytes) bytes") }
            return nil
        }
        pending.append(contentsOf: bytes.raw[bytes.at..<lf])
        bytes.at = lf + 1
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        if pending.count > Self.maxLineBytes { throw Malformed("a chunk line is over \(Self.maxLineBytes) bytes") }
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }

    /// The size in a chunk-size line (hex digits, then optional extensions after `;`).
    private static func chunkSize(_ line: [UInt8]) throws(Malformed) -> Int {
        var size = 0
        var digits = 0
        for b in line {
            let v: Int
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = Int(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = Int(b - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = Int(b - UInt8(ascii: "A")) + 10
            case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"):
                guard digits > 0 else { throw Malformed("a chunk-size line has no size") }
                return size
            default: throw Malformed("a chunk-size line is not hexadecimal")
            }
            digits += 1
            guard digits <= 15 else { throw Malformed("a chunk is too large") }
            size = size << 4 | v
        }
        guard digits > 0 else { throw Malformed("a chunk-size line has no size") }
        return size
    }
}
