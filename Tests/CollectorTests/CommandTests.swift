import AsyncHTTPClient
import Collector
import Foundation
import NIOCore
import XCTest

/// Runs the built `mr-collector` binary: first stdout line, real requests, graceful stop on signals.
final class CommandTests: XCTestCase {
    private func binary() throws -> URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let url = root.appendingPathComponent(".build/debug/mr-collector")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw XCTSkip("mr-collector is not built at \(url.path)")
        }
        return url
    }

    private func run(signal: Int32) async throws {
        let path = temporaryPath(".ndjson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = try binary()
        process.arguments = ["--port", "0", "--write-key", "cli-key", "--store", path, "--base-path", "/x"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read the first line (the port) as soon as it is printed.
        var line: [UInt8] = []
        while true {
            let chunk = try out.fileHandleForReading.read(upToCount: 1) ?? Data()
            if chunk.isEmpty || chunk.first == 0x0A { break }
            line.append(contentsOf: chunk)
        }
        let first = String(decoding: line, as: UTF8.self)
        XCTAssertTrue(first.hasPrefix("mr-collector listening on http://127.0.0.1:"), first)
        let base = String(first.dropFirst("mr-collector listening on ".count))
        XCTAssertGreaterThan(Int(base.split(separator: ":").last ?? "") ?? 0, 0)

        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        var request = HTTPClientRequest(url: base + "/x/v1/batch")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Basic " + Data("cli-key:".utf8).base64EncodedString())
        request.body = .bytes(ByteBuffer(string: Fixtures.analyticsPythonBody))
        let response = try await client.execute(request, timeout: .seconds(10))
        XCTAssertEqual(response.status.code, 200)
        try await client.shutdown()

        kill(process.processIdentifier, signal)
        let errText = String(decoding: try err.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let stats = try JSONDecoder().decode(
            CollectorStats.self, from: Data((errText.split(separator: "\n").last ?? "").utf8))
        XCTAssertEqual(stats.events, Fixtures.analyticsPythonEventCount)
        XCTAssertEqual(stats.responses, ["200": 1])
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, Fixtures.analyticsPythonEventCount)
    }

    func testCommandStopsGracefullyOnSIGTERM() async throws { try await run(signal: SIGTERM) }

    func testCommandStopsGracefullyOnSIGINT() async throws { try await run(signal: SIGINT) }

    func testCommandRejectsBadFlags() throws {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = ["--write-key", "k", "--oversize-status", "500"]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        process.waitUntilExit()
        XCTAssertNotEqual(process.terminationStatus, 0)
    }
}
