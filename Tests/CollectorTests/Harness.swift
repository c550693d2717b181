import AsyncHTTPClient
import Collector
import Foundation
import NIOCore
import NIOHTTP1
import XCTest

/// Sends requests over real HTTP to a server at `base`.
protocol HTTPHarness {
    var client: HTTPClient { get }
    var base: String { get }
}

/// Starts a collector on an ephemeral port and talks to it over real HTTP.
struct Harness: HTTPHarness {
    let server: CollectorServer
    let client: HTTPClient
    let base: String
    static let key = "test-key"

    static func start(_ configure: (inout CollectorConfiguration) -> Void = { _ in }) async throws -> Harness {
        var config = CollectorConfiguration(writeKey: key)
        configure(&config)
        let server = CollectorServer(configuration: config)
        let port = try await server.start()
        XCTAssertGreaterThan(port, 0)
        let base = await server.baseURL
        XCTAssertEqual(base, "http://127.0.0.1:\(port)")
        return Harness(server: server, client: HTTPClient(eventLoopGroupProvider: .singleton), base: base)
    }

    static func basic(_ key: String = Harness.key, password: String = "") -> String {
        "Basic " + Data("\(key):\(password)".utf8).base64EncodedString()
    }

    func stop() async throws {
        try await client.shutdown()
        try await server.shutdown()
    }
}

extension HTTPHarness {
    /// Sends `body` and returns the status, headers and body text.
    func post(
        _ body: [UInt8], path: String = "/v1/batch", auth: String? = Harness.basic(), gzip: Bool = false
    ) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: base + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let auth { request.headers.add(name: "Authorization", value: auth) }
        if gzip { request.headers.add(name: "Content-Encoding", value: "gzip") }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: .seconds(20))
        let text = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers, String(buffer: text))
    }

    func post(_ body: String, path: String = "/v1/batch", auth: String? = Harness.basic(), gzip: Bool = false)
        async throws -> (status: Int, headers: HTTPHeaders, body: String)
    {
        try await post(Array(body.utf8), path: path, auth: auth, gzip: gzip)
    }

    func get(_ path: String) async throws -> (status: Int, body: String) {
        let response = try await client.execute(HTTPClientRequest(url: base + path), timeout: .seconds(10))
        let text = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: text))
    }
}

/// A fresh temporary file path.
func temporaryPath(_ suffix: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("collector-\(UUID().uuidString)\(suffix)").path
}

extension HTTPHarness {
    /// The count-only checks shared by the Hummingbird count-only mode and the NIO server: a batch
    /// with an invalid event (200: not checked), a truncated body (400), a wrong key (401). Then
    /// `stats` must show what ``assertCountOnlyStats(_:body:file:line:)`` expects. Returns the
    /// batch's body.
    func postCountOnlyChecks(file: StaticString = #filePath, line: UInt = #line) async throws -> String {
        let body = Fixtures.batch([Fixtures.track("a"), "{\"type\":\"nope\"}", Fixtures.track("a")])
        do { let status = try await post(body).status; XCTAssertEqual(status, 200, file: file, line: line) }
        do { let status = try await post("{\"batch\":[1,").status; XCTAssertEqual(status, 400, file: file, line: line) }
        do { let status = try await post(body, auth: Harness.basic("wrong")).status; XCTAssertEqual(status, 401, file: file, line: line) }
        return body
    }
}

/// What the collector counted for ``HTTPHarness/postCountOnlyChecks(file:line:)``.
func assertCountOnlyStats(_ stats: CollectorStats, body: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(stats.events, 3, file: file, line: line)
    XCTAssertEqual(stats.requests, 3, file: file, line: line)
    XCTAssertEqual(stats.maxBatchEvents, 3, file: file, line: line)
    XCTAssertEqual(stats.unique, 0, file: file, line: line)
    XCTAssertEqual(stats.invalid, 0, file: file, line: line)
    XCTAssertEqual(stats.bytes, body.utf8.count * 2 + 12, file: file, line: line)
}
