/// Where requests go: scheme, host and port (no path).
package struct S3Endpoint: Sendable, Equatable, CustomStringConvertible {
    /// `http` or `https`.
    package var scheme: String
    /// The host name or address (IPv6 without brackets).
    package var host: String
    /// The port, nil for the scheme's default.
    package var port: Int?
    /// Whether it was configured (an S3-compatible store, or a test server) rather than AWS's.
    package var isCustom: Bool

    /// An endpoint.
    package init(scheme: String, host: String, port: Int? = nil, isCustom: Bool) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.isCustom = isCustom
    }

    /// AWS's regional endpoint for `service` (`s3.eu-west-1.amazonaws.com`).
    package static func aws(service: String, region: String) -> S3Endpoint {
        let suffix = region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com"
        return S3Endpoint(scheme: "https", host: "\(service).\(region).\(suffix)", isCustom: false)
    }

    /// Parses `http(s)://host[:port][/]`.
    package init(parsing text: String) throws(S3Error) {
        let invalid = { (why: String) in S3Error(.invalidLocation, "endpoint \"\(text)\": \(why)") }
        guard let separator = text.range(of: "://") else { throw invalid("write it as http://host:port or https://host") }
        let scheme = text[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { throw invalid("the scheme must be http or https") }
        var authority = text[separator.upperBound...]
        if let slash = authority.firstIndex(of: "/") {
            guard authority[slash...].allSatisfy({ $0 == "/" }) else {
                throw invalid("an endpoint has no path (the bucket goes in the s3:// input)")
            }
            authority = authority[..<slash]
        }
        var host = String(authority)
        var port: Int?
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            if rest.hasPrefix(":") { port = Int(rest.dropFirst()) ?? -1 }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            port = Int(authority[authority.index(after: colon)...]) ?? -1
        }
        guard !host.isEmpty else { throw invalid("the host is missing") }
        if let port, !(1...65535).contains(port) { throw invalid("the port is not a number from 1 to 65535") }
        self.init(scheme: scheme, host: host, port: port, isCustom: true)
    }

    /// `host[:port]` as the `Host` header and URLs carry it (default ports left out).
    package var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        guard let port, port != (scheme == "https" ? 443 : 80) else { return name }
        return "\(name):\(port)"
    }

    /// `scheme://authority`.
    package var description: String { "\(scheme)://\(authority)" }
}
