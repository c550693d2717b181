/// Where a field is in an event: object keys from the top level down, such as
/// `properties.price` or `context.device.id`. The one path type of the configuration: the
/// `transform:` steps' paths and the CSV mappings' targets.
///
/// Written in a configuration as a dotted string (`\.` is a dot inside a key, `\\` a
/// backslash) or as a list of keys (`[properties, "a.b"]`). Every component is an object key:
/// there are no array indexes. Keys match by their exact UTF-8 bytes, as in ``JSONObject``.
package struct FieldPath: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The keys, outermost first; never empty, no key empty.
    package let components: [String]
    /// Each component's UTF-8 bytes, for comparing with keys in an event's bytes.
    package let componentBytes: [[UInt8]]

    /// A path of these keys. Returns nil when there are none or one is empty.
    package init?(components: [String]) {
        guard !components.isEmpty, !components.contains(where: \.isEmpty) else { return nil }
        self.components = components
        self.componentBytes = components.map { Array($0.utf8) }
    }

    /// Parses the dotted form. Returns nil for an empty component or a dangling backslash.
    package init?(dotted text: String) {
        // By Unicode scalars, so that a backslash or dot followed by a combining mark still counts.
        var parts: [String] = []
        var current = String.UnicodeScalarView()
        var escaping = false
        for scalar in text.unicodeScalars {
            if escaping {
                current.append(scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "." {
                parts.append(String(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        guard !escaping else { return nil }
        parts.append(String(current))
        self.init(components: parts)
    }

    /// The top-level key.
    package var head: String { components[0] }

    /// The dotted form, escaping dots and backslashes inside keys.
    package var description: String {
        components.map { key in
            var escaped = String.UnicodeScalarView()
            for scalar in key.unicodeScalars {
                if scalar == "\\" || scalar == "." { escaped.append("\\") }
                escaped.append(scalar)
            }
            return String(escaped)
        }.joined(separator: ".")
    }

    /// The dotted form of the first `count` components.
    package func prefix(_ count: Int) -> String {
        FieldPath(components: Array(components.prefix(count)))?.description ?? ""
    }
}
