import Foundation

/// Checks the endpoint URL: http(s), a host, and plain http only to loopback unless allowed.
enum EndpointCheck {
    static func check(host: String, allowInsecureHTTP: Bool) throws(DeliveryConfigurationError) {
        guard let url = URLComponents(string: host), let scheme = url.scheme?.lowercased(),
            let name = url.host, !name.isEmpty
        else {
            throw .init(setting: "host", "\"\(host)\" is not an absolute http(s) URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw .init(setting: "host", "scheme must be http or https, got \"\(scheme)\"")
        }
        if url.query != nil || url.fragment != nil {
            throw .init(setting: "host", "must not contain a query or fragment")
        }
        if scheme == "http" && !allowInsecureHTTP && !isLoopback(name) {
            throw .init(
                setting: "host",
                "plain http is only allowed to loopback hosts (set allowInsecureHTTP to send to \(name))")
        }
    }

    /// Whether `name` is a loopback host name or address.
    static func isLoopback(_ name: String) -> Bool {
        let n = name.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if n == "localhost" || n.hasSuffix(".localhost") || n == "::1" { return true }
        let parts = n.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
