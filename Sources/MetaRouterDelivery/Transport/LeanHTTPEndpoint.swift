import Foundation
import NIOCore
import SystemTLS

/// An `http://` or `https://` endpoint of ``LeanHTTPTransport``: where to connect (the endpoint,
/// or the HTTP proxy it is reached through), whether over TLS and with which server name, and the
/// request heads that requests to it start from.
struct LeanHTTPEndpoint: Sendable {
    /// The host to connect to (an IPv6 address without brackets).
    let host: String
    let port: Int
    /// Whether the connection is TLS (`https://`).
    let tls: Bool
    /// `host[:port]` as the `Host` header carries it.
    let authority: String
    /// `scheme://authority`: the connection pool's key (a transport has one proxy, so it is the
    /// same whether the endpoint is reached through it or not).
    let key: String
    /// The request target: percent-encoded path and query, `/` when empty; the whole URL when
    /// the request is forwarded by a proxy.
    private(set) var target: String
    /// The proxy the connection goes to, if any: a `CONNECT` tunnel for `https`, forwarding for `http`.
    private(set) var proxy: HTTPProxy?

    /// The host the TCP connection goes to: the proxy's, or the endpoint's.
    var connectHost: String { proxy?.host ?? host }
    /// The port the TCP connection goes to.
    var connectPort: Int { proxy?.port ?? port }
    /// Whether the connection is a `CONNECT` tunnel through ``proxy`` (TLS starts after it opens).
    var tunnels: Bool { tls && proxy != nil }
    /// `host:port` as a `CONNECT` request names it (the port always given).
    var tunnelAuthority: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// Parses `url`; nil unless it is an `http://` or `https://` URL with a host.
    init?(url: String) {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty
        else { return nil }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.host = bare
        tls = scheme == "https"
        port = parts.port ?? (tls ? 443 : 80)
        let shown = bare.contains(":") ? "[\(bare)]" : bare
        authority = parts.port.map { "\(shown):\($0)" } ?? shown
        key = scheme + "://" + authority
        var target = parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath
        if let query = parts.percentEncodedQuery { target += "?" + query }
        self.target = target
    }

    /// This endpoint reached through `proxy` (unchanged when nil): a plain `http` request then
    /// names the whole URL, as a forwarding proxy expects (RFC 9112 §3.2.2), and carries the
    /// proxy's credentials; an `https` one goes through a tunnel and keeps its own form.
    func routed(through proxy: HTTPProxy?) -> LeanHTTPEndpoint {
        guard let proxy else { return self }
        var routed = self
        routed.proxy = proxy
        if !tls { routed.target = "http://\(authority)\(target)" }
        return routed
    }

    /// The bytes of a `POST` head to this endpoint carrying `headers` (in order, after `Host`),
    /// up to its framing: the request line and every field but `Content-Length`, each line ending
    /// in CRLF. nil when a header cannot be sent (see ``isValidToSend(name:value:)``). The
    /// connections do not validate each request's headers again: every head comes from here.
    func headPrefix(headers: [(name: String, value: String)]) -> [UInt8]? {
        guard headers.allSatisfy({ Self.isValidToSend(name: $0.name, value: $0.value) }) else { return nil }
        var text = "POST \(target) HTTP/1.1\r\nHost: \(authority)\r\n"
        if !tls, let field = proxy?.authorizationField { text += field }
        for h in headers where !Self.isFraming(h.name) { text += "\(h.name): \(h.value)\r\n" }
        return Array(text.utf8)
    }

    /// Whether a header field can be sent as is: its name is a non-empty token (RFC 9110 §5.6.2)
    /// and its value holds no CR, LF or NUL (which would end the field or the head early).
    static func isValidToSend(name: String, value: String) -> Bool {
        let separators = Set(#"(),/:;<=>?@[\]{}""#.utf8)
        let nameIsToken = !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !separators.contains($0) }
        return nameIsToken && !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
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

/// One request's head: the prefix its header list gave (shared by every request with that list)
/// and its body's length, written as the last field.
struct LeanRequestHead: Sendable {
    /// The request line and fields but `Content-Length` (``LeanHTTPEndpoint/headPrefix(headers:)``).
    let prefix: [UInt8]
    /// The body's length in bytes.
    let contentLength: Int

    /// The bytes ``write(to:)`` writes at most.
    var maxSize: Int { prefix.count + 40 }

    /// Writes the head, its `Content-Length` field and the blank line that ends it.
    func write(to buffer: inout ByteBuffer) {
        buffer.writeBytes(prefix)
        buffer.writeStaticString("Content-Length: ")
        buffer.writeString(String(contentLength))
        buffer.writeStaticString("\r\n\r\n")
    }

    /// The head's bytes as sent.
    var bytes: [UInt8] {
        var buffer = ByteBuffer()
        write(to: &buffer)
        return Array(buffer.readableBytesView)
    }
}

/// The request heads of one URL, built once per distinct header list (the engine sends the same
/// one or two lists every time), so a request costs a `Content-Length` and no header building.
struct LeanHeadCache: Sendable {
    let endpoint: LeanHTTPEndpoint
    private var prefixes: [(headers: [(name: String, value: String)], prefix: [UInt8])] = []

    init(endpoint: LeanHTTPEndpoint) { self.endpoint = endpoint }

    /// The head for `headers` and a body of `length` bytes; nil when a header cannot be sent.
    mutating func head(headers: [(name: String, value: String)], length: Int) -> LeanRequestHead? {
        if let cached = prefixes.first(where: { Self.same($0.headers, headers) }) {
            return LeanRequestHead(prefix: cached.prefix, contentLength: length)
        }
        guard let made = endpoint.headPrefix(headers: headers) else { return nil }
        if prefixes.count >= 4 { prefixes.removeFirst() }
        prefixes.append((headers, made))
        return LeanRequestHead(prefix: made, contentLength: length)
    }

    private static func same(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

/// The handlers of a lean connection to one endpoint, added when the connection opens (or when
/// its proxy tunnel does): TLS first when the endpoint is `https`, then the HTTP handler.
struct LeanPipeline: Sendable {
    let endpoint: LeanHTTPEndpoint
    let tls: TLSContext?
    let handshake: EventLoopPromise<Void>?
    let fault: LeanConnectionFault

    /// Adds the handlers to `channel`'s pipeline; call on its event loop. The HTTP handler goes in
    /// first, so that a TLS handler added to an open connection (a tunnel), which starts its
    /// handshake at once, has it there to report to.
    func add(to channel: any Channel) throws {
        let pipeline = channel.pipeline.syncOperations
        // Every head was validated once, when its header list was first seen (LeanHeadCache).
        try pipeline.addHandler(LeanHTTPConnectionHandler(handshake: handshake, fault: fault))
        if let tls {
            try pipeline.addHandler(TLSHandler(client: tls, host: endpoint.host), position: .first)
        }
    }
}
