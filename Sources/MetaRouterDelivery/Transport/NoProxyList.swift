import Foundation

/// A `NO_PROXY` list: the hosts that are reached directly even when a proxy is set, matched as
/// curl matches them.
///
/// Entries are separated by commas (and optional spaces) and compared without regard to case:
/// `*` alone matches every host; `example.com` matches `example.com` and every name under it
/// (`api.example.com`), but not `badexample.com`; a leading dot (`.example.com`) means the same.
/// An IP address matches only itself (no address ranges). A port after an entry (`host:8080`)
/// is ignored, like curl does.
package struct NoProxyList: Sendable, Equatable {
    /// The entries, lowercased, without leading dots, brackets or ports; empty entries dropped.
    package let entries: [String]

    /// Parses a `NO_PROXY` value such as `localhost,.internal.example,10.0.0.1`.
    package init(_ text: String) {
        entries = text.split(separator: ",").compactMap { raw in
            var entry = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if entry == "*" { return entry }
            while entry.hasPrefix(".") { entry.removeFirst() }
            entry = Self.withoutPort(entry)
            while entry.hasSuffix(".") { entry.removeLast() }
            return entry.isEmpty ? nil : entry
        }
    }

    /// Whether requests to `host` (a name or an IP address, IPv6 with or without brackets) go
    /// directly, not through the proxy.
    package func bypasses(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }
        if name.isEmpty { return false }
        let isAddress = Self.isIPAddress(name)
        for entry in entries {
            if entry == "*" || entry == name { return true }
            if !isAddress && name.hasSuffix("." + entry) { return true }
        }
        return false
    }

    /// Whether `name` is an IPv4 or IPv6 address (matched exactly, never as a domain suffix).
    private static func isIPAddress(_ name: String) -> Bool {
        if name.contains(":") { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }

    /// `entry` without a `:port` suffix (an IPv6 address keeps its colons; brackets go).
    private static func withoutPort(_ entry: String) -> String {
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { return entry }
            return String(entry[entry.index(after: entry.startIndex)..<close])
        }
        let colons = entry.filter { $0 == ":" }.count
        if colons == 1, let colon = entry.firstIndex(of: ":"),
            entry[entry.index(after: colon)...].allSatisfy(\.isNumber)
        {
            return String(entry[..<colon])
        }
        return entry
    }
}
