import NIOCore
import NIOHTTP1

/// One request for an ``ObjectHTTPClient``: the method, the URL, the headers and the body.
///
/// The caller sets every header but the body's length (`Host` included, so a signed request goes
/// out exactly as signed); the client adds `Content-Length` for a body, and `Content-Length: 0`
/// for a POST or PUT without one.
package struct ObjectHTTPRequest: Sendable {
    /// `GET`, `HEAD`, `PUT`, `POST`, `DELETE`.
    package var method: String
    /// `http://` or `https://`, the host, an optional port, and the path and query, already
    /// percent-encoded (they are sent as they are).
    package var url: String
    /// The header fields, `Host` included.
    package var headers: ObjectHTTPHeaders
    /// The body, if any.
    package var body: ByteBuffer?

    /// A request.
    package init(method: String = "GET", url: String, headers: ObjectHTTPHeaders = ObjectHTTPHeaders(), body: ByteBuffer? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// Whether sending it twice does what sending it once does (every method this package sends
    /// but POST), so that a request that met a stale kept-alive connection may be sent again.
    var isIdempotent: Bool { method.uppercased() != "POST" }

    /// The HTTP/1.1 head for `target`, with the body's `Content-Length`.
    func head(for target: HTTPTarget) -> HTTPRequestHead {
        var fields = HTTPHeaders()
        for field in headers where !ObjectHTTPHeaders.sameName(field.name, "Content-Length") {
            fields.add(name: field.name, value: field.value)
        }
        let method = HTTPMethod(rawValue: self.method.uppercased())
        if let body {
            fields.add(name: "Content-Length", value: String(body.readableBytes))
        } else if method == .POST || method == .PUT {
            fields.add(name: "Content-Length", value: "0")
        }
        return HTTPRequestHead(version: .http1_1, method: method, uri: target.path, headers: fields)
    }
}
