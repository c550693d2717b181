import Foundation

/// Checks `Authorization: Basic base64(writeKey:)` headers.
package enum BasicAuth {
    /// The outcome of looking at the Authorization header.
    package enum Result: Equatable, Sendable {
        /// No header: authentication may still come from the body.
        case absent
        /// A Basic header with the right write key and an empty password.
        case valid
        /// Any other header.
        case invalid
    }

    /// Checks `header` against `writeKey`.
    package static func check(_ header: String?, writeKey: String) -> Result {
        guard let header else { return .absent }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8)
        else { return .invalid }
        return text == writeKey + ":" ? .valid : .invalid
    }

    /// The header value for `writeKey` (for clients and tests).
    package static func header(for writeKey: String) -> String {
        "Basic " + Data((writeKey + ":").utf8).base64EncodedString()
    }
}
