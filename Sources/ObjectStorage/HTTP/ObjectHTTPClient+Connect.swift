import NIOCore
import NIOHTTP1
import NIOPosix
import SystemTLS

extension ObjectHTTPClient {
    /// A new connection to `target`, with its TLS handshake done for HTTPS: made within the
    /// connect timeout and before `deadline` (the request's `timeout` from its start).
    /// - Throws: ``ObjectHTTPError`` (connect failed, TLS, or timed out), or `CancellationError`
    ///   at once when the task is cancelled (a connection made after that is closed).
    func connect(to target: HTTPTarget, deadline: NIODeadline, timeout: Duration) async throws -> any Channel {
        let tls = target.isTLS ? try tlsContext() : nil
        let remaining = deadline - .now()
        guard remaining > .zero else { throw ObjectHTTPError(.timedOut, "no connection to \(target.authority) within \(timeout)") }
        let limitedByDeadline = remaining < TimeAmount(connectTimeout)
        let eventLoop = eventLoopGroup.next()
        let handshake = tls == nil ? nil : eventLoop.makePromise(of: Void.self)
        let connecting = bootstrap(on: eventLoop, for: target, tls: tls, handshake: handshake)
            .connectTimeout(limitedByDeadline ? remaining : TimeAmount(connectTimeout))
            .connect(host: target.host, port: target.port)
        connecting.whenFailure { handshake?.fail($0) }
        let ready = connecting.flatMap { channel in
            Self.handshakeDone(handshake, on: channel, by: deadline, of: target, timeout: timeout).map { channel }
        }
        do {
            return try await awaitCancellably(ready) { $0.close(promise: nil) }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw connectError(error, target: target, limitedByDeadline: limitedByDeadline, timeout: timeout)
        }
    }

    /// A bootstrap for connections to `target` on `eventLoop`: `autoRead` off, the pipeline
    /// `[TLSHandler (HTTPS), HTTPRequestEncoder, HTTPResponseDecoder, HTTPConnectionHandler]`,
    /// and the idle pool told when a connection closes.
    private func bootstrap(
        on eventLoop: any EventLoop, for target: HTTPTarget, tls: TLSContext?, handshake: EventLoopPromise<Void>?
    ) -> ClientBootstrap {
        let (pool, key) = (pool, target.poolKey)
        return ClientBootstrap(group: eventLoop)
            .channelOption(ChannelOptions.autoRead, value: false)
            .channelInitializer { channel in
                channel.closeFuture.whenComplete { _ in pool.remove(channel, key: key) }
                return channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls { try pipeline.addHandler(TLSHandler(client: tls, host: target.host)) }
                    try pipeline.addHandler(HTTPRequestEncoder())
                    try pipeline.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes)))
                    try pipeline.addHandler(HTTPConnectionHandler(handshake: handshake) { pool.put($0, key: key) })
                }
            }
    }

    /// Succeeds when `handshake` (none for plain HTTP) does; fails, closing `channel`, when it
    /// fails or `deadline` passes first.
    private static func handshakeDone(
        _ handshake: EventLoopPromise<Void>?, on channel: any Channel, by deadline: NIODeadline, of target: HTTPTarget,
        timeout: Duration
    ) -> EventLoopFuture<Void> {
        guard let handshake else { return channel.eventLoop.makeSucceededVoidFuture() }
        let late = channel.eventLoop.scheduleTask(deadline: deadline) {
            handshake.fail(ObjectHTTPError(.timedOut, "the TLS handshake with \(target.authority) did not end within \(timeout)"))
        }
        return handshake.futureResult.always { result in
            late.cancel()
            if case .failure = result { channel.close(promise: nil) }
        }
    }

    /// What a failure to connect to `target` means: a timeout when the request's deadline was the
    /// limit, else a connect failure naming the reason.
    private func connectError(_ error: any Error, target: HTTPTarget, limitedByDeadline: Bool, timeout: Duration) -> ObjectHTTPError {
        let place = "cannot connect to \(target.authority)"
        switch error {
        case let error as ObjectHTTPError:
            return error.kind == .tls ? ObjectHTTPError(.tls, "\(place): \(error.detail)") : error
        case ChannelError.connectTimeout:
            guard limitedByDeadline else { return ObjectHTTPError(.connectFailed, "\(place): no connection within \(connectTimeout)") }
            return ObjectHTTPError(.timedOut, "\(place): no connection within \(timeout)")
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first {
                return connectError(first.error, target: target, limitedByDeadline: limitedByDeadline, timeout: timeout)
            }
            let dns = error.dnsAError ?? error.dnsAAAAError
            return ObjectHTTPError(.connectFailed, "\(place): the name does not resolve" + (dns.map { " (\($0))" } ?? ""))
        case let error as IOError:
            return ObjectHTTPError(.connectFailed, "\(place): \(ObjectHTTPError.reason(error))")
        default:
            return ObjectHTTPError(.connectFailed, "\(place): \(error)")
        }
    }
}
