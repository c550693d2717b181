import Foundation
import NIOCore
import NIOHTTP1

/// An `http://` or `https://` endpoint of ``LeanHTTPTransport``: where to connect, whether over
/// TLS and with which server name, and the request heads that requests to it start from.
struct LeanHTTPEndpoint: Sendable {
    /// The host to connect to (an IPv6 address without brackets).
    let host: String
    let port: Int
    /// Whether the connection is TLS (`https://`).
    let tls: Bool
    /// The name sent as SNI and checked against the server's certificate: the host, or nil when
    /// it is an IP address (NIOSSL then checks the certificate against the peer's address).
    let serverName: String?
    /// `host[:port]` as the `Host` header carries it.
    let authority: String
    /// `scheme://authority`: the connection pool's key.
    let key: String
    /// The request target: percent-encoded path and query, `/` when empty.
    let target: String

    /// Parses `url`; nil unless it is an `http://` or `https://` URL with a host.
    init?(url: String) {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty
        else { return nil }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.host = bare
        tls = scheme == "https"
        serverName = Self.isIPAddress(bare) ? nil : bare
        port = parts.port ?? (tls ? 443 : 80)
        let shown = bare.contains(":") ? "[\(bare)]" : bare
        authority = parts.port.map { "\(shown):\($0)" } ?? shown
        key = scheme + "://" + authority
        var target = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let query = parts.percentEncodedQuery { target += "?" + query }
        self.target = target
    }

    /// A `POST` head to this endpoint carrying `headers` (in order, after `Host`), without framing;
    /// nil when a header cannot be sent (see ``isValidToSend(name:value:)``). The connections do
    /// not validate each request's headers again: every head comes from here.
    func head(headers: [(name: String, value: String)]) -> HTTPRequestHead? {
        guard headers.allSatisfy({ Self.isValidToSend(name: $0.name, value: $0.value) }) else { return nil }
        var fields = HTTPHeaders()
        fields.reserveCapacity(headers.count + 2)
        fields.add(name: "Host", value: authority)
        for h in headers where !Self.isFraming(h.name) { fields.add(name: h.name, value: h.value) }
        return HTTPRequestHead(version: .http1_1, method: .POST, uri: target, headers: fields)
    }

    /// Whether a header field can be sent as is: its name is a non-empty token (RFC 9110 §5.6.2)
    /// and its value holds no CR, LF or NUL (which would end the field or the head early).
    static func isValidToSend(name: String, value: String) -> Bool {
        let separators = Set(#"(),/:;<=>?@[\]{}""#.utf8)
        let nameIsToken = !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !separators.contains($0) }
        return nameIsToken && !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    }

    /// Whether `host` is an IPv4 or IPv6 address literal (which TLS may not send as SNI).
    static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    /// Whether `name` is a header the transport sets itself (framing and `Host`).
    static func isFraming(_ name: String) -> Bool {
        for framing in ["Content-Length", "Transfer-Encoding", "Host"]
        where HTTPFieldName.same(name, framing) {
            return true
        }
        return false
    }
}

/// The request heads of one URL, built once per distinct header list (the engine sends the same
/// one or two lists every time), so a request costs a `Content-Length` and no header building.
struct LeanHeadCache: Sendable {
    let endpoint: LeanHTTPEndpoint
    private var heads: [(headers: [(name: String, value: String)], head: HTTPRequestHead)] = []

    init(endpoint: LeanHTTPEndpoint) { self.endpoint = endpoint }

    /// The head for `headers` and a body of `length` bytes; nil when a header cannot be sent.
    mutating func head(headers: [(name: String, value: String)], length: Int) -> HTTPRequestHead? {
        var head: HTTPRequestHead
        if let cached = heads.first(where: { Self.same($0.headers, headers) }) {
            head = cached.head
        } else {
            guard let made = endpoint.head(headers: headers) else { return nil }
            head = made
            if heads.count >= 4 { heads.removeFirst() }
            heads.append((headers, head))
        }
        head.headers.add(name: "Content-Length", value: String(length))
        return head
    }

    private static func same(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
