import NIOCore
import NIOHTTP1

/// One request written down a connection's pipeline to its ``HTTPConnectionHandler``: the head,
/// the body, until when the answer's head may take, and the stream its answer goes to.
struct HTTPExchange: Sendable {
    /// The request's head.
    let head: HTTPRequestHead
    /// The request's body, if any.
    let body: ByteBuffer?
    /// When the exchange fails unless the answer's head has arrived.
    let deadline: NIODeadline
    /// The request's whole timeout, for the message when the deadline passes.
    let timeout: Duration
    /// Where the answer goes.
    let stream: ResponseStream
}
