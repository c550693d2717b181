import Foundation

/// An HTTP proxy. Requests to an `https` endpoint go through it with `CONNECT`, so TLS stays
/// end to end (the endpoint's certificate is checked as without a proxy); requests to a plain
/// `http` endpoint are forwarded by it.
///
/// Printing it, or reflecting on it, never shows the password.
public struct HTTPProxy: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Basic credentials for the proxy (`Proxy-Authorization`).
    public struct Credentials: Sendable, Equatable {
        /// The user name.
        public var username: String
        /// The password.
        public var password: String

        /// Creates credentials.
        public init(username: String, password: String) {
            self.username = username
            self.password = password
        }
    }

    /// The proxy's host name or IP address.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// Credentials sent to the proxy, if it needs them.
    public var credentials: Credentials?

    /// Creates a proxy at `host`:`port`.
    public init(host: String, port: Int, credentials: Credentials? = nil) {
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// Parses a proxy URL: `http://host:port`, `http://user:password@host:port` or `host:port`
    /// (`http` is assumed); a trailing `/` is allowed. The port is required, and only `http`
    /// proxies are supported (the connection to the proxy itself is not encrypted).
    /// - Throws: ``DeliveryConfigurationError`` with setting `proxy`.
    public init(url text: String) throws(DeliveryConfigurationError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let url = URLComponents(string: withScheme), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty
        else { throw .init(setting: "proxy", "\"\(text)\" is not a proxy URL such as http://proxy.example:3128") }
        guard scheme == "http" else {
            throw .init(setting: "proxy", "\"\(text)\": only http:// proxies are supported, not \(scheme)://")
        }
        guard let port = url.port, (1...65535).contains(port) else {
            throw .init(setting: "proxy", "\"\(text)\" has no port (for example http://\(host):3128)")
        }
        guard url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil else {
            throw .init(setting: "proxy", "\"\(text)\" must be just scheme, host and port")
        }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        if let user = url.user, !user.isEmpty {
            credentials = Credentials(username: user, password: url.password ?? "")
        }
    }

    /// The `Proxy-Authorization: Basic …` field, CRLF included, when the proxy has credentials:
    /// the one form of them that goes on the wire (in a `CONNECT`, or in a forwarded request).
    var authorizationField: String? {
        guard let credentials else { return nil }
        let token = Data("\(credentials.username):\(credentials.password)".utf8).base64EncodedString()
        return "Proxy-Authorization: Basic \(token)\r\n"
    }

    /// `http://host:port`, with the password masked when there are credentials.
    public var description: String {
        let auth = credentials.map { "\($0.username):****@" } ?? ""
        let name = host.contains(":") ? "[\(host)]" : host
        return "http://\(auth)\(name):\(port)"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Reflection shows ``description`` only (the password masked).
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }

    /// The proxy for requests to `endpoint` (a URL such as `https://ingest.example.com`), chosen
    /// as curl chooses it, or `nil` to connect directly.
    ///
    /// - `configured`, the application's own setting, wins over the environment; `none` means
    ///   no proxy at all, and an empty value counts as not set.
    /// - Otherwise, for an `https` endpoint, `https_proxy`, then `HTTPS_PROXY`; for a plain
    ///   `http` endpoint, `http_proxy` (lowercase only, as curl). Empty variables count as unset.
    /// - `noProxy` (the application's setting) wins over `no_proxy`, then `NO_PROXY`; when it
    ///   matches the endpoint's host (``NoProxyList``), the connection is direct, whichever way
    ///   the proxy was set.
    /// - Throws: ``DeliveryConfigurationError`` naming where the bad proxy URL came from
    ///   (`proxy`, or the environment variable's name).
    public static func resolve(
        for endpoint: String, configured: String?, noProxy: String?, environment: [String: String]
    ) throws(DeliveryConfigurationError) -> HTTPProxy? {
        guard let url = URLComponents(string: endpoint), let host = url.host, !host.isEmpty else { return nil }
        let https = url.scheme?.lowercased() == "https"
        let names = https ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
        let source: (setting: String, value: String)
        if let configured = configured?.trimmingCharacters(in: .whitespaces), !configured.isEmpty {
            if configured.lowercased() == "none" { return nil }
            source = ("proxy", configured)
        } else if let name = names.first(where: { !(environment[$0] ?? "").isEmpty }), let value = environment[name] {
            source = (name, value)
        } else {
            return nil
        }
        let bypass =
            noProxy.flatMap { $0.isEmpty ? nil : $0 }
            ?? ["no_proxy", "NO_PROXY"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        if let bypass, NoProxyList(bypass).bypasses(host: host) { return nil }
        do {
            return try HTTPProxy(url: source.value)
        } catch {
            throw .init(setting: source.setting, error.message)
        }
    }
}
