/// Why an ``ObjectHTTPClient`` request got no complete answer: ``kind`` says what happened,
/// ``detail`` says it in the words a failure message shows.
package struct ObjectHTTPError: Error, Sendable, CustomStringConvertible {
    /// What happened.
    package enum Kind: Sendable, Equatable {
        /// The URL is not `http://` or `https://` with a host (and an optional port).
        case invalidURL
        /// No connection could be made: refused, unreachable, a name that does not resolve, or no
        /// connection within the client's connect timeout.
        case connectFailed
        /// TLS could not be set up, its handshake failed, or a TLS record could not be read.
        case tls
        /// The connection was reset or closed before the answer was complete.
        case closed
        /// The answer's head did not arrive within the request's timeout.
        case timedOut
        /// The bytes that arrived are not an HTTP/1.1 answer.
        case malformedAnswer
        /// The answer's body is larger than the caller collects.
        case bodyTooLarge
        /// The client was shut down.
        case shutDown
    }

    /// What happened.
    package let kind: Kind
    /// What happened, in words: `cannot connect to 127.0.0.1:9: Connection refused (errno 111)`.
    package let detail: String

    /// An error of `kind`, described by `detail`.
    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The detail.
    package var description: String { detail }
}
