/// The head of one HTTP/1.x answer, parsed from its bytes (status line and header fields, the
/// blank line that ends them included or not) in one pass over them: what
/// ``HTTPResponseParser`` reads it with.
struct HTTPAnswerHead {
    /// The status code.
    private(set) var status = 0
    /// `HTTP/1.1` or later 1.x (else 1.0).
    private(set) var isHTTP11 = false
    /// The header fields in order.
    private(set) var fields: [HTTPResponseParser.HTTPField] = []

    /// What the framing fields said, gathered as they are read.
    private var connectionClose = false
    private var connectionKeepAlive = false
    /// Whether the last transfer coding is `chunked`, when there is a `Transfer-Encoding` field.
    private var lastCodingIsChunked: Bool?
    /// The one `Content-Length`, if given; `invalidLength` when the values are not one number.
    private var contentLength: Int?
    private var invalidLength = false

    /// How the answer's body is delimited.
    enum Framing: Equatable {
        /// No body.
        case none
        /// `Content-Length` bytes.
        case length(Int)
        /// Chunked transfer coding.
        case chunked
        /// To the connection's close.
        case untilClose
    }

    /// Parses `bytes`; throws when they are not a status line and header fields.
    init(_ bytes: [UInt8]) throws(HTTPResponseParser.Malformed) {
        var start = 0
        var sawStatus = false
        while start < bytes.count {
            let lf = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            var end = lf
            if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = bytes[start..<end]
            start = lf + 1
            if line.isEmpty {
                if sawStatus { break }
                continue  // a recipient may skip empty lines before the status line
            }
            if sawStatus {
                try field(line)
            } else {
                try statusLine(line)
                sawStatus = true
            }
        }
        guard sawStatus else { throw .init("the answer has no status line") }
    }

    /// Whether the connection may carry another request: HTTP/1.1 unless `Connection: close`,
    /// HTTP/1.0 only with `Connection: keep-alive`.
    var keepAlive: Bool { !connectionClose && (isHTTP11 || connectionKeepAlive) }

    /// How the body of this answer to a `POST` is delimited (RFC 9112 §6.3).
    func framing() throws(HTTPResponseParser.Malformed) -> Framing {
        if status == 204 || status == 304 { return .none }
        if let lastCodingIsChunked { return lastCodingIsChunked ? .chunked : .untilClose }
        if invalidLength { throw .init("the answer's Content-Length is not one number") }
        return contentLength.map { .length($0) } ?? .untilClose
    }

    /// `HTTP/1.x SSS reason`.
    private mutating func statusLine(_ b: ArraySlice<UInt8>) throws(HTTPResponseParser.Malformed) {
        let s = b.startIndex
        guard b.count >= 12, b.prefix(7).elementsEqual("HTTP/1.".utf8), Self.isDigit(b[s + 7]), b[s + 8] == UInt8(ascii: " ") else {
            throw .init("the answer does not start with an HTTP/1.x status line")
        }
        guard Self.isDigit(b[s + 9]), Self.isDigit(b[s + 10]), Self.isDigit(b[s + 11]), b.count == 12 || b[s + 12] == UInt8(ascii: " "),
            b[s + 9] != UInt8(ascii: "0")
        else { throw .init("the answer's status is not three digits") }
        status = Int(b[s + 9] - 48) * 100 + Int(b[s + 10] - 48) * 10 + Int(b[s + 11] - 48)
        isHTTP11 = b[s + 7] >= UInt8(ascii: "1")
    }

    /// `name: value`, with the value's surrounding spaces and tabs removed; notes what the
    /// framing fields say.
    private mutating func field(_ line: ArraySlice<UInt8>) throws(HTTPResponseParser.Malformed) {
        if Self.isSpace(line[line.startIndex]) { throw .init("the answer folds a header field over lines") }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
            throw .init("a header field of the answer has no name")
        }
        let name = line[line.startIndex..<colon]
        guard name.allSatisfy(Self.isTokenByte) else { throw .init("a header field name of the answer is not a token") }
        let value = Self.trimmed(line[(colon + 1)...])
        if Self.equalsLowercased(name, "connection") {
            Self.forEachItem(value) { option in
                if Self.equalsLowercased(option, "close") { connectionClose = true }
                if Self.equalsLowercased(option, "keep-alive") { connectionKeepAlive = true }
            }
        } else if Self.equalsLowercased(name, "transfer-encoding") {
            Self.forEachItem(value) { lastCodingIsChunked = Self.equalsLowercased($0, "chunked") }
        } else if Self.equalsLowercased(name, "content-length") {
            Self.forEachItem(value) { noteLength($0) }
        }
        fields.append(.init(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
    }

    /// One value of `Content-Length`: digits, the same as any other.
    private mutating func noteLength(_ digits: ArraySlice<UInt8>) {
        guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy(Self.isDigit) else {
            invalidLength = true
            return
        }
        let n = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
        if let seen = contentLength, seen != n { invalidLength = true }
        contentLength = n
    }

    /// Calls `body` with each comma-separated item of `list`, trimmed (empty items included).
    private static func forEachItem(_ list: ArraySlice<UInt8>, _ body: (ArraySlice<UInt8>) -> Void) {
        var start = list.startIndex
        while true {
            let comma = list[start...].firstIndex(of: UInt8(ascii: ",")) ?? list.endIndex
            body(trimmed(list[start..<comma]))
            guard comma < list.endIndex else { return }
            start = comma + 1
        }
    }

    /// Whether `bytes`, ASCII letters lowercased, are `lowercase`.
    private static func equalsLowercased(_ bytes: ArraySlice<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        // `utf8Start` points at the literal's `utf8CodeUnitCount` bytes.
        let want = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return zip(bytes, want).allSatisfy { a, w in (a >= 65 && a <= 90 ? a | 0x20 : a) == w }
    }

    private static func trimmed(_ b: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let first = b.firstIndex(where: { !isSpace($0) }), let last = b.lastIndex(where: { !isSpace($0) }) else { return b[b.endIndex...] }
        return b[first...last]
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

    /// A byte of a token (RFC 9110 §5.6.2): visible ASCII but the separators.
    private static func isTokenByte(_ b: UInt8) -> Bool {
        guard b > 0x20, b < 0x7F else { return false }
        switch b {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ","), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: ";"),
            UInt8(ascii: "<"), UInt8(ascii: "="), UInt8(ascii: ">"), UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "["),
            UInt8(ascii: "\\"), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\""):
            return false
        default: return true
        }
    }
}
