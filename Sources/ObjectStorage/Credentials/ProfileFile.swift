/// The sections of an AWS shared `credentials` or `config` file (an INI dialect).
///
/// In `credentials` a section is the profile's plain name (`[prod]`); in `config` it is
/// `[profile prod]`, except `[default]`. Keys are case-insensitive; a line starting with `#` or
/// `;` is a comment (inside a value they are kept, as botocore keeps them); an indented line under a key with an empty value belongs to a nested block (`s3 =` …), which
/// is skipped. A later section or key of the same name wins, as in botocore.
package struct ProfileFile: Sendable, Equatable {
    /// Which of the two files (they name their sections differently).
    package enum Kind: Sendable { case credentials, config }

    /// Settings by profile name, then by lower-case key.
    package private(set) var profiles: [String: [String: String]] = [:]

    /// Parses `text` as the given kind of file.
    package init(parsing text: String, kind: Kind) {
        var current: String?
        var inNestedBlock = false
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let trimmed = rawLine.trimmingWhitespace()
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            let indented = rawLine.first == " " || rawLine.first == "\t"
            if trimmed.hasPrefix("[") {
                inNestedBlock = false
                let close = trimmed.firstIndex(of: "]")
                current = close.flatMap { Self.profileName(section: String(trimmed[trimmed.index(after: trimmed.startIndex)..<$0]), kind: kind) }
                if let current, profiles[current] == nil { profiles[current] = [:] }
                continue
            }
            guard let profile = current else { continue }
            if indented && inNestedBlock { continue }
            guard let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = trimmed[..<equals].trimmingWhitespace().lowercased()
            let value = trimmed[trimmed.index(after: equals)...].trimmingWhitespace()
            inNestedBlock = value.isEmpty
            if !value.isEmpty { profiles[profile, default: [:]][key] = value }
        }
    }

    /// The profile's settings, nil when the file has no such profile.
    package func profile(_ name: String) -> [String: String]? { profiles[name] }

    /// `prod` for `[prod]` in credentials and for `[profile prod]` in config; nil for a config
    /// section that is not a profile (`[sso-session x]`, `[services y]`).
    private static func profileName(section: String, kind: Kind) -> String? {
        let name = section.trimmingWhitespace()
        switch kind {
        case .credentials:
            return name.isEmpty ? nil : name
        case .config:
            if name == "default" { return name }
            guard name.hasPrefix("profile ") || name.hasPrefix("profile\t") else { return nil }
            let profile = name.dropFirst("profile".count).trimmingWhitespace()
            return profile.isEmpty ? nil : profile
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
