import NIOCore
import NIOHTTP1

/// One request as the collector's endpoints see it: the head and the whole body.
struct CollectorRequest {
    /// The request's method.
    let method: HTTPMethod
    /// The request target as sent (path and query).
    let uri: String
    /// The request's header fields.
    let headers: HTTPHeaders
    /// The body, or nil when it was over ``SegmentLimits/maxRawBodyBytes`` (the rest is not read).
    let body: ByteBuffer?
    /// The connection it came on (fault injection resets it).
    let channel: any Channel

    /// The first value of header `name` (case-insensitive), if any.
    func header(_ name: String) -> String? { headers.first(name: name) }
}

/// The collector's answer to one request: a status, header fields and a body, or a reset.
struct CollectorResponse: Sendable {
    /// The status code.
    var status: Int
    /// Header fields besides the framing (`Content-Length` and `Connection` are the server's).
    var headers: [(name: String, value: String)]
    /// The body.
    var body: ByteBuffer
    /// Whether the connection closes after the answer (`Connection: close`).
    var closesConnection = false
    /// Whether the connection is reset (TCP RST) instead of answered.
    var resetsConnection = false

    /// A JSON answer with `status` and `text`.
    static func json(_ status: Int, _ text: some Collection<UInt8>) -> CollectorResponse {
        var body = ByteBuffer()
        body.writeBytes(text)
        return CollectorResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// A connection reset instead of an answer.
    static var reset: CollectorResponse {
        CollectorResponse(status: 500, headers: [], body: ByteBuffer(), resetsConnection: true)
    }
}
