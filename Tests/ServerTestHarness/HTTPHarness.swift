import AsyncHTTPClient
import Collector
import CountOnlySink
import Foundation
import GzipCodec
import NIOCore
import NIOHTTP1
import NIOPosix
import ServerTesting
import Testing

/// Sends requests over real HTTP to a server at `base`.
package protocol HTTPHarness: Sendable {
    /// `HTTPClient.shared`, which needs no shutdown: a test that throws part-way leaves nothing
    /// to clean up (a client of its own would trap in its deinit).
    var client: HTTPClient { get }
    var base: String { get }
}

/// Runs `body` with an HTTP client of its own (for a pool wider than `.shared`'s) and shuts the
/// client down whether `body` returns or throws (one left running traps in its deinit).
package func withHTTPClient<T>(connectionsPerHost: Int, _ body: (HTTPClient) async throws -> T) async throws -> T {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    do {
        let result = try await body(client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}

/// The write key every harness's server expects.
package let testKey = "test-key"

/// `Basic base64(key:password)`.
package func basic(_ key: String = testKey, password: String = "") -> String {
    "Basic " + Data("\(key):\(password)".utf8).base64EncodedString()
}

/// A full collector on an ephemeral port, running for the length of a test body, talked to over
/// real HTTP.
package struct Harness: HTTPHarness {
    package let server: CollectorServer
    package let running: RunningServer
    package let client: HTTPClient
    package let base: String

    /// A harness over a collector already running as `running`.
    package init(server: CollectorServer, running: RunningServer, client: HTTPClient, base: String) {
        self.server = server
        self.running = running
        self.client = client
        self.base = base
    }

    /// Runs `body` with a collector configured by `configure`; it shuts down when `body` ends.
    package static func run<T>(
        _ configure: (inout CollectorConfiguration) -> Void = { _ in }, body: (Harness) async throws -> T
    ) async throws -> T {
        var config = CollectorConfiguration(writeKey: testKey)
        configure(&config)
        let server = CollectorServer(configuration: config)
        return try await withRunningServer(server) { running in
            #expect(running.port > 0)
            let base = await server.baseURL
            #expect(base == "http://127.0.0.1:\(running.port)")
            return try await body(Harness(server: server, running: running, client: .shared, base: base))
        }
    }

    /// Shuts the collector down before the body ends (it lets requests in flight finish).
    package func stop() async {
        await running.shutdown()
    }
}

/// A count-only sink on an ephemeral port, running for the length of a test body, talked to
/// over real HTTP.
package struct CountOnlyHarness: HTTPHarness {
    package let server: CountOnlyServer
    package let running: RunningServer
    package let client: HTTPClient
    package let base: String
    package var port: Int { running.port }

    /// Runs `body` with a sink configured by `configure`, on `threads` event loops of its own
    /// when given; it shuts down (and its loops with it) when `body` ends.
    package static func run<T>(
        threads: Int? = nil, _ configure: (inout CountOnlyConfiguration) -> Void = { _ in },
        body: (CountOnlyHarness) async throws -> T
    ) async throws -> T {
        var config = CountOnlyConfiguration(writeKey: testKey)
        configure(&config)
        let loops = threads.map { MultiThreadedEventLoopGroup(numberOfThreads: $0) }
        let server = CountOnlyServer(configuration: config, eventLoopGroup: loops ?? .singleton)
        do {
            let result = try await withRunningServer(server) { running in
                #expect(running.port > 0)
                let base = await server.baseURL
                #expect(base == "http://127.0.0.1:\(running.port)")
                return try await body(CountOnlyHarness(server: server, running: running, client: .shared, base: base))
            }
            try await loops?.shutdownGracefully()
            return result
        } catch {
            try? await loops?.shutdownGracefully()
            throw error
        }
    }

    /// Shuts the sink down before the body ends, once every connection is closed.
    package func stop() async {
        await running.shutdown()
    }
}

/// Posts to any base URL (a server run some other way than by a harness).
package struct Posting: HTTPHarness {
    package let client: HTTPClient
    package let base: String

    /// Posts to `base` through `client`.
    package init(client: HTTPClient, base: String) {
        self.client = client
        self.base = base
    }
}

/// One HTTP answer.
package struct Answer: Sendable {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: String
}

extension HTTPHarness {
    /// Sends `body` to `path` and returns the answer.
    package func post(
        _ body: [UInt8], path: String = "/v1/batch", auth: String? = basic(), gzip: Bool = false,
        headers extra: [(String, String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: base + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let auth { request.headers.add(name: "Authorization", value: auth) }
        if gzip { request.headers.add(name: "Content-Encoding", value: "gzip") }
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: .seconds(20))
        let text = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: String(buffer: text))
    }

    /// Sends the UTF-8 of `body`.
    package func post(
        _ body: String, path: String = "/v1/batch", auth: String? = basic(), gzip: Bool = false,
        headers extra: [(String, String)] = []
    ) async throws -> Answer {
        try await post(Array(body.utf8), path: path, auth: auth, gzip: gzip, headers: extra)
    }

    /// A GET of `path`.
    package func get(_ path: String) async throws -> Answer {
        let response = try await client.execute(HTTPClientRequest(url: base + path), timeout: .seconds(10))
        let text = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: String(buffer: text))
    }
}

/// Gzips `bytes` (as clients do with `Content-Encoding: gzip`).
package func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
    try GzipCodec.compress(bytes)
}

/// A fresh temporary file path.
package func temporaryPath(_ suffix: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("collector-\(UUID().uuidString)\(suffix)").path
}

/// Removes what a collector with its store at `path` leaves on disk: the store, SQLite's `-wal`
/// and `-shm` files, and the SimpleAnalytics file the collector opens beside the store.
package func removeStoreFiles(_ path: String) {
    let beside = CollectorConfiguration.simpleAnalyticsPath(beside: path)
    for file in [path, path + "-wal", path + "-shm", beside] { try? FileManager.default.removeItem(atPath: file) }
}
