import NIOCore
import NIOPosix
import ObjectStorage
import Synchronization

/// The HTTP client a command reads `s3://` inputs and partitions with: made when the first store
/// needs it, and shut down by whoever runs the command's work (``withClient(eventLoopGroup:_:)``),
/// so no client outlives the work that used it.
///
/// The client (ObjectStorage's ``ObjectHTTPClient``) connects within 10 seconds and has no read
/// timeout: the reader keeps its own idle timeout (docs/s3.md). It follows no redirects (a region
/// redirect must be an error naming the region) and decompresses nothing (an object is read byte
/// for byte, `Content-Encoding: gzip` or not, so offsets and ranges stay the object's).
package final class S3HTTPClient: Sendable {
    private let eventLoopGroup: any EventLoopGroup
    private let made = Mutex<ObjectHTTPClient?>(nil)

    /// A holder whose client, once made, runs on `eventLoopGroup`.
    init(eventLoopGroup: any EventLoopGroup) {
        self.eventLoopGroup = eventLoopGroup
    }

    /// Runs `body` with a holder, then shuts its client down (if `body` made one), whether `body`
    /// returned or threw.
    package static func withClient<R>(
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        _ body: (S3HTTPClient) async throws -> R
    ) async throws -> R {
        let http = S3HTTPClient(eventLoopGroup: eventLoopGroup)
        let result: Result<R, any Error>
        do {
            result = .success(try await body(http))
        } catch {
            result = .failure(error)
        }
        await http.shutdown()
        return try result.get()
    }

    /// The client, made on first use.
    var client: ObjectHTTPClient {
        made.withLock { made in
            if let made { return made }
            let client = ObjectHTTPClient(eventLoopGroup: eventLoopGroup, connectTimeout: .seconds(10))
            made = client
            return client
        }
    }

    /// Shuts the client down, if one was made; later uses make a new one.
    func shutdown() async {
        guard
            let client = made.withLock({ made -> ObjectHTTPClient? in
                defer { made = nil }
                return made
            })
        else { return }
        await client.shutdown()
    }
}
