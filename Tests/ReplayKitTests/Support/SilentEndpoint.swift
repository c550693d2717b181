import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A loopback TCP endpoint that takes requests and never answers them, so whatever a run sends
/// stays in flight. The first bytes of each connection create the file `arrivals/<n>` in the
/// directory given, so a ``FileWatch`` on that directory wakes the moment a request is in flight.
final class SilentEndpoint: Sendable {
    /// `http://127.0.0.1:PORT`.
    let url: String
    private let channel: any Channel

    private init(url: String, channel: any Channel) {
        self.url = url
        self.channel = channel
    }

    /// Listens on a free loopback port; arrivals are recorded under `directory/arrivals/`.
    static func start(recordingIn directory: String) async throws -> SilentEndpoint {
        let arrivals = directory + "/arrivals"
        try FileManager.default.createDirectory(atPath: arrivals, withIntermediateDirectories: true)
        let counter = Counter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(Listener(arrivals: arrivals, counter: counter))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return SilentEndpoint(url: "http://127.0.0.1:\(channel.localAddress?.port ?? 0)", channel: channel)
    }

    /// Stops listening (connections already open are left to their clients).
    func stop() async throws { try await channel.close() }

    /// Numbers the connections.
    private final class Counter: Sendable {
        private let next = Atomic<Int>(0)
        /// The next number, from 1.
        func take() -> Int { next.add(1, ordering: .relaxed).newValue }
    }

    /// Reads and drops what the client sends; records its first bytes as an arrival.
    private final class Listener: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let arrivals: String
        private let counter: Counter
        private let reads = Counter()

        init(arrivals: String, counter: Counter) {
            self.arrivals = arrivals
            self.counter = counter
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard reads.take() == 1 else { return }
            _ = FileManager.default.createFile(atPath: "\(arrivals)/\(counter.take())", contents: nil)
        }
    }
}
