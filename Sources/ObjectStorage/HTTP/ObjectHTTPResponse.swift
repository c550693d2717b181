import NIOCore

/// An answer from an ``ObjectHTTPClient``: its status and headers, which have arrived, and its
/// body, which streams with backpressure.
///
/// Read the body to its end to let the connection carry the next request; a body dropped before
/// its end (or whose reading task is cancelled) closes its connection.
package struct ObjectHTTPResponse: Sendable {
    /// The status code (`200`, `206`, `404`…).
    package var status: Int
    /// The header fields.
    package var headers: ObjectHTTPHeaders
    /// The body's bytes, as they arrive.
    package var body: Body
}
