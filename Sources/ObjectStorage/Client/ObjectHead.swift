import Foundation

/// What a HEAD or GET answer says about the object.
package struct ObjectHead: Sendable, Equatable {
    /// The whole object's size, when the answer says (Content-Length of a 200, the total of a
    /// 206's Content-Range).
    package var size: UInt64?
    /// The ETag, quotes included.
    package var etag: String?
    /// When it was last written.
    package var lastModified: Date?
    /// For a 206, the first byte of the range sent.
    package var rangeStart: UInt64?

    /// A head from its parts.
    package init(size: UInt64?, etag: String?, lastModified: Date?, rangeStart: UInt64? = nil) {
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
        self.rangeStart = rangeStart
    }

    /// Reads the headers of `response` to a request for bytes from `offset`.
    init(response: ObjectHTTPResponse, offset: UInt64) {
        let headers = response.headers
        etag = headers.first(name: "ETag")
        lastModified = headers.first(name: "Last-Modified").flatMap(S3DateParsing.httpDate)
        let length = headers.first(name: "Content-Length").flatMap { UInt64($0) }
        if let range = headers.first(name: "Content-Range").flatMap(ContentRange.init(header:)) {
            rangeStart = range.start
            size = range.total
        } else {
            size = length
        }
    }
}

/// An opened object: its head and its body, which streams with backpressure (the HTTP client
/// reads from the network only as fast as the body is consumed).
package struct ObjectStream: Sendable {
    /// What the answer said about the object.
    package var head: ObjectHead
    /// The bytes, from the offset asked for to the end.
    package var body: ObjectHTTPResponse.Body
}

/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange: Equatable {
    var start: UInt64
    var end: UInt64
    var total: UInt64?

    init?(header: String) {
        let trimmed = header.trimmingWhitespace()
        guard trimmed.hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count)
        let parts = spec.split(separator: "/", maxSplits: 1)
        let bounds = parts.first?.split(separator: "-", maxSplits: 1) ?? []
        guard parts.count == 2, bounds.count == 2, let start = UInt64(bounds[0]), let end = UInt64(bounds[1]) else {
            return nil
        }
        self.start = start
        self.end = end
        total = UInt64(parts[1])
    }
}

extension S3DateParsing {
    /// An HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`).
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text.trimmingWhitespace())
    }
}
