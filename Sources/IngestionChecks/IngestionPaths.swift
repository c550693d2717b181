/// The two paths both servers answer: `{base}/v1/batch` and `{base}/stats` (plus `/stats`).
package struct IngestionPaths: Sendable, Equatable {
    /// `{base}/v1/batch`.
    package let batch: String
    /// `{base}/stats` and `/stats` (one entry when there is no base path).
    package let stats: [String]

    /// The paths under `basePath` (a leading slash is added and trailing ones dropped).
    package init(basePath: String) {
        let base = Self.normalized(basePath)
        batch = base + "/v1/batch"
        stats = base.isEmpty ? ["/stats"] : [base + "/stats", "/stats"]
    }

    /// `basePath` with one leading slash and no trailing slash ("" when empty).
    package static func normalized(_ basePath: String) -> String {
        var p = basePath
        while p.hasSuffix("/") { p.removeLast() }
        if p.isEmpty { return "" }
        return p.hasPrefix("/") ? p : "/" + p
    }

    /// A request target (origin or absolute form) as a path, without its query or fragment and
    /// without one trailing slash.
    package static func path(of uri: String) -> Substring {
        var path = Substring(uri)
        // The absolute form (`http://host:port/path`, RFC 9112 §3.2.2), which a server must
        // accept and a forwarding proxy may pass on: the path starts after the authority.
        if let scheme = path.range(of: "://"), path[..<scheme.lowerBound].allSatisfy({ $0.isLetter }) {
            let authority = path[scheme.upperBound...]
            path = authority.firstIndex(where: { $0 == "/" || $0 == "?" }).map { authority[$0...] } ?? "/"
            if path.first == "?" { path = "/" }
        }
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        if path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        return path
    }
}
