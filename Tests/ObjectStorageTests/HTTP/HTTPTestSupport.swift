import NIOCore
import NIOPosix
import ObjectStorage
import Testing

/// The event loops of the HTTP client's tests, clients and servers alike: two threads of their
/// own, so that other suites keeping the shared singleton's loops busy (in-process replays run
/// their engines there) do not delay these tests' answers.
let httpTestLoops = MultiThreadedEventLoopGroup(numberOfThreads: 2)

/// A client for one test, on ``httpTestLoops``.
func makeTestClient(connectTimeout: Duration = .seconds(30), caFile: String? = nil) -> ObjectHTTPClient {
    ObjectHTTPClient(eventLoopGroup: httpTestLoops, connectTimeout: connectTimeout, caFile: caFile)
}

/// A request to `server` for `path`, with its `Host`.
func testRequest(
    _ server: LocalHTTPServer, method: String = "GET", path: String = "/object", scheme: String = "http", host: String = "127.0.0.1",
    body: ByteBuffer? = nil
) -> ObjectHTTPRequest {
    ObjectHTTPRequest(
        method: method, url: "\(scheme)://\(host):\(server.port)\(path)",
        headers: ObjectHTTPHeaders([(name: "Host", value: "\(host):\(server.port)")]), body: body)
}

/// Whether `chunk` holds the server's body bytes from `offset` on.
func holdsBodyBytes(_ chunk: ByteBuffer, from offset: Int) -> Bool {
    chunk.readableBytesView.enumerated().allSatisfy { $0.element == LocalHTTPServer.byte(at: offset + $0.offset) }
}

/// Whether `error` is an ``ObjectHTTPError`` of `kind` whose detail contains `text`.
func isHTTPError(_ error: any Error, _ kind: ObjectHTTPError.Kind, saying text: String = "") -> Bool {
    guard let error = error as? ObjectHTTPError else { return false }
    return error.kind == kind && (text.isEmpty || error.detail.contains(text))
}
