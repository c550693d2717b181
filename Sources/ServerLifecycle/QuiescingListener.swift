import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle
import Synchronization

/// How the collector and the count-only sink listen: bind `host:port` on the caller's group,
/// record the port in `listening`, serve each connection with the handlers `initialize` adds,
/// and on cancellation or graceful shutdown quiesce through NIOExtras' `ServerQuiescingHelper`
/// (the listener closes, each connection gets `ChannelShouldQuiesceEvent`), returning once every
/// connection has closed.
package enum QuiescingListener {
    /// Serves until cancelled or shut down gracefully (see the type).
    /// - Throws: the bind error (for example a port in use, an `IOError` with `EADDRINUSE`);
    ///   `listening` is failed with it.
    package static func serve(
        group: any EventLoopGroup, host: String, port: Int, listening: ListeningPort,
        recvAllocator: AdaptiveRecvByteBufferAllocator = AdaptiveRecvByteBufferAllocator(),
        initialize: @escaping @Sendable (any Channel) throws -> Void
    ) async throws {
        let quiescing = ServerQuiescingHelper(group: group)
        let listener: any Channel
        do {
            listener = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 1024)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                    }
                }
                .childChannelOption(.recvAllocator, value: recvAllocator)
                .childChannelInitializer { channel in channel.eventLoop.makeCompletedFuture { try initialize(channel) } }
                .bind(host: host, port: port)
                .get()
        } catch {
            listening.fail(error)
            throw error
        }
        listening.bound(listener.localAddress?.port ?? 0)
        let allClosed = listener.eventLoop.makePromise(of: Void.self)
        let once = ShutdownOnce(allClosed)
        await withTaskCancellationOrGracefulShutdownHandler {
            try? await allClosed.futureResult.get()
        } onCancelOrGracefulShutdown: {
            once.fire { quiescing.initiateShutdown(promise: $0) }
        }
        listening.fail()
    }
}

/// Hands the shutdown promise to the first of graceful shutdown and cancellation only: the
/// quiescing helper must get a given promise once.
private final class ShutdownOnce: Sendable {
    private let promise: Mutex<EventLoopPromise<Void>?>

    init(_ promise: EventLoopPromise<Void>) {
        self.promise = Mutex(promise)
    }

    /// Runs `body` with the promise the first time; does nothing after.
    func fire(_ body: (EventLoopPromise<Void>) -> Void) {
        let first = promise.withLock { held -> EventLoopPromise<Void>? in
            defer { held = nil }
            return held
        }
        guard let first else { return }
        body(first)
    }
}
