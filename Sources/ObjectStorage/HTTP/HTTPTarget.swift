import NIOCore

/// Where a request goes, read from its URL: TLS or not, the host, the port, and the request target
/// (the path and query, sent as they are: the caller has percent-encoded them).
struct HTTPTarget: Sendable, Equatable {
    /// Whether the scheme is `https`.
    var isTLS: Bool
    /// The host name or address (an IPv6 address without brackets).
    var host: String
    /// The port (the scheme's default when the URL has none).
    var port: Int
    /// The path and query, starting with `/`.
    var path: String

    /// Reads `url`: `http(s)://host[:port][/path][?query]`, the host a name, an IPv4 address or a
    /// bracketed IPv6 address.
    /// - Throws: ``ObjectHTTPError/Kind/invalidURL`` naming what is wrong.
    init(url: String) throws(ObjectHTTPError) {
        let invalid = { (why: String) in ObjectHTTPError(.invalidURL, "cannot request \(url): \(why)") }
        guard let separator = url.range(of: "://") else { throw invalid("it has no scheme") }
        switch url[..<separator.lowerBound].lowercased() {
        case "http": isTLS = false
        case "https": isTLS = true
        default: throw invalid("the scheme must be http or https")
        }
        let rest = url[separator.upperBound...]
        let pathStart = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<pathStart]
        let path = rest[pathStart...]
        self.path = path.hasPrefix("/") ? String(path) : "/" + path
        guard !authority.contains("@") else { throw invalid("a URL with user information is not supported") }
        guard let (host, port) = Self.split(authority) else { throw invalid("the host or the port is missing or malformed") }
        self.host = host
        self.port = port ?? (isTLS ? 443 : 80)
    }

    /// `host` and the port, if any, of `authority` (`name`, `name:port`, `[v6]`, `[v6]:port`);
    /// nil when the host is empty or the port is not a number from 1 to 65535.
    private static func split(_ authority: Substring) -> (String, Int?)? {
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                port = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { return nil }
        guard let port else { return (String(host), nil) }
        guard let number = Int(port), (1...65535).contains(number) else { return nil }
        return (String(host), number)
    }

    /// `scheme://host:port`: connections to the same key are interchangeable.
    var poolKey: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return "\(isTLS ? "https" : "http")://\(name):\(port)"
    }

    /// `host:port` for messages (`[v6]:port` for an IPv6 address).
    var authority: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
