import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import SystemTLS

/// The object store's HTTP/1.1 client, on SwiftNIO, with TLS on the system's OpenSSL
/// (``SystemTLS``) for `https://`.
///
/// - It starts nothing when made: connections are opened on the caller's event loops as requests
///   need them, and kept alive in a small idle pool per `scheme://host:port`.
/// - ``execute(_:timeout:)``'s timeout bounds connecting, sending and the answer's head; the body
///   then streams with backpressure and no read timeout of the client's own (the S3 reader keeps
///   its own idle timeout).
/// - It follows no redirect and decompresses nothing: an answer's body is exactly the bytes sent.
/// - ``shutdown()`` closes the idle connections; later requests fail.
package final class ObjectHTTPClient: Sendable {
    /// The event loops connections run on: the caller's, never shut down by the client.
    package let eventLoopGroup: any EventLoopGroup
    /// The longest the TCP connection may take to be made (within each request's timeout).
    package let connectTimeout: Duration
    /// A PEM file of CA certificates trusted beside the system's, for HTTPS.
    let caFile: String?
    /// The idle keep-alive connections.
    let pool: IdleConnectionPool
    /// The TLS context, made at the first `https://` request (or why it cannot be made).
    private let tls = NIOLockedValueBox<Result<TLSContext, ObjectHTTPError>?>(nil)

    /// A client whose connections run on `eventLoopGroup`, each made within `connectTimeout`,
    /// trusting the system's CA certificates and those of PEM file `caFile`, and keeping up to
    /// `maxIdlePerHost` idle connections per `scheme://host:port`.
    package init(
        eventLoopGroup: any EventLoopGroup, connectTimeout: Duration = .seconds(10), caFile: String? = nil,
        maxIdlePerHost: Int = 8
    ) {
        self.eventLoopGroup = eventLoopGroup
        self.connectTimeout = connectTimeout
        self.caFile = caFile
        pool = IdleConnectionPool(maxPerKey: maxIdlePerHost)
    }

    /// Sends `request` and returns the answer once its head has arrived; its body streams after.
    ///
    /// `timeout` bounds connecting, sending the request and receiving the answer's head. A
    /// request that met a kept-alive connection the server had closed (nothing of the answer came)
    /// is sent again on a new connection, unless it is a POST.
    /// - Throws: ``ObjectHTTPError``, or `CancellationError` when the task is cancelled (the
    ///   connection is then closed).
    package func execute(_ request: ObjectHTTPRequest, timeout: Duration) async throws -> ObjectHTTPResponse {
        try Task.checkCancellation()
        let target = try HTTPTarget(url: request.url)
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let head = request.head(for: target)
        while true {
            let (channel, reused) = try await connection(to: target, deadline: deadline, timeout: timeout)
            let stream = ResponseStream(channel: channel)
            let exchange = HTTPExchange(head: head, body: request.body, deadline: deadline, timeout: timeout, stream: stream)
            do {
                return try await send(exchange, on: channel)
            } catch let error as ObjectHTTPError where reused && request.isIdempotent && error.kind == .closed && !stream.headArrived {
                continue  // a stale kept-alive connection: the next one, or a new one
            }
        }
    }

    /// Closes the idle connections; later requests fail with ``ObjectHTTPError/Kind/shutDown``.
    /// Answers being read go on; their connections are closed when they end.
    package func shutdown() async {
        for channel in pool.shutDown() {
            try? await channel.close()
        }
    }

    /// An idle connection to `target` (reused), or a new one.
    private func connection(
        to target: HTTPTarget, deadline: NIODeadline, timeout: Duration
    ) async throws -> (channel: any Channel, reused: Bool) {
        guard !pool.isShutDown else { throw ObjectHTTPError(.shutDown, "the HTTP client was shut down") }
        if let idle = pool.take(target.poolKey) { return (idle, true) }
        return (try await connect(to: target, deadline: deadline, timeout: timeout), false)
    }

    /// Writes `exchange` on `channel` and waits for the answer's head.
    private func send(_ exchange: HTTPExchange, on channel: any Channel) async throws -> ObjectHTTPResponse {
        let stream = exchange.stream
        channel.writeAndFlush(exchange).whenFailure { error in
            stream.fail(.connection(error, phase: "while the request was sent"))
        }
        let head = try await stream.head()
        let headers = ObjectHTTPHeaders(head.headers.map { (name: $0.name, value: $0.value) })
        return ObjectHTTPResponse(status: Int(head.status.code), headers: headers, body: ObjectHTTPResponse.Body(stream))
    }

    /// The client TLS context, made once (a failure is kept too: the files do not change).
    func tlsContext() throws(ObjectHTTPError) -> TLSContext {
        let made = tls.withLockedValue { made in
            if let made { return made }
            let result: Result<TLSContext, ObjectHTTPError>
            do {
                result = .success(try TLSContext.client(systemRoots: true, caFile: caFile))
            } catch {
                let what = caFile.map { "the system's CA certificates or \($0)" } ?? "the system's CA certificates"
                result = .failure(ObjectHTTPError(.tls, "cannot set up TLS with \(what): \(error)"))
            }
            made = result
            return result
        }
        return try made.get()
    }
}
