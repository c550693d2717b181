import AsyncHTTPClient
import Collector
import Foundation
import NIOCore
import XCTest

/// Runs the built `mr-collector` binary: first stdout line, real requests, graceful stop on signals.
final class CommandTests: XCTestCase {
    /// The `mr-collector` built with the tests (next to the test bundle, whatever the scratch
    /// path), else `.build/debug/mr-collector`.
    private func binary() throws -> URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("mr-collector")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let url = root.appendingPathComponent(".build/debug/mr-collector")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw XCTSkip("mr-collector is not built at \(url.path)")
        }
        return url
    }

    /// Starts `mr-collector` with `arguments`; returns the process, its stderr and the base URL
    /// from its first stdout line.
    private func launch(_ arguments: [String]) throws -> (Process, Pipe, String) {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
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
        return (process, err, base)
    }

    /// Sends SIGINT/SIGTERM, waits for a clean exit and decodes the final stats from stderr.
    private func stop(_ process: Process, _ err: Pipe, signal: Int32) throws -> CollectorStats {
        kill(process.processIdentifier, signal)
        let errText = String(decoding: try err.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return try JSONDecoder().decode(
            CollectorStats.self, from: Data((errText.split(separator: "\n").last ?? "").utf8))
    }

    private func run(signal: Int32) async throws {
        let path = temporaryPath(".ndjson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (process, err, base) = try launch(
            ["--port", "0", "--write-key", "cli-key", "--store", path, "--base-path", "/x"])

        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        var request = HTTPClientRequest(url: base + "/x/v1/batch")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Basic " + Data("cli-key:".utf8).base64EncodedString())
        request.body = .bytes(ByteBuffer(string: Fixtures.analyticsPythonBody))
        let response = try await client.execute(request, timeout: .seconds(10))
        XCTAssertEqual(response.status.code, 200)
        try await client.shutdown()

        let stats = try stop(process, err, signal: signal)
        XCTAssertEqual(stats.events, Fixtures.analyticsPythonEventCount)
        XCTAssertEqual(stats.responses, ["200": 1])
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, Fixtures.analyticsPythonEventCount)
    }

    func testCommandStopsGracefullyOnSIGTERM() async throws { try await run(signal: SIGTERM) }

    func testCommandStopsGracefullyOnSIGINT() async throws { try await run(signal: SIGINT) }

    /// Runs `mr-collector` with `arguments` (expected to exit at once) and returns its status.
    private func exitStatus(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = arguments
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    func testCommandRejectsBadFlags() throws {
        XCTAssertNotEqual(try exitStatus(["--write-key", "k", "--oversize-status", "500"]), 0)
    }

    /// `--count-only` runs the SwiftNIO count-only server: same first line, same signals, same stats.
    private func runCountOnly(signal: Int32) async throws {
        let (process, err, base) = try launch(
            ["--port", "0", "--write-key", "cli-key", "--count-only", "--base-path", "/x"])
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let auth = "Basic " + Data("cli-key:".utf8).base64EncodedString()
        let body = Array(Fixtures.analyticsPythonBody.utf8)
        for zipped in [false, true] {
            var request = HTTPClientRequest(url: base + "/x/v1/batch")
            request.method = .POST
            request.headers.add(name: "Authorization", value: auth)
            if zipped { request.headers.add(name: "Content-Encoding", value: "gzip") }
            request.body = .bytes(ByteBuffer(bytes: zipped ? try gzip(body) : body))
            let response = try await client.execute(request, timeout: .seconds(10))
            XCTAssertEqual(response.status.code, 200)
        }
        var wrong = HTTPClientRequest(url: base + "/x/v1/batch")
        wrong.method = .POST
        wrong.body = .bytes(ByteBuffer(bytes: body))
        let refused = try await client.execute(wrong, timeout: .seconds(10))
        XCTAssertEqual(refused.status.code, 401)
        let statsResponse = try await client.execute(HTTPClientRequest(url: base + "/x/stats"), timeout: .seconds(10))
        let statsBody = try await statsResponse.body.collect(upTo: 1 << 20)
        let live = try JSONDecoder().decode(CollectorStats.self, from: Data(String(buffer: statsBody).utf8))
        XCTAssertEqual(live.events, 2 * Fixtures.analyticsPythonEventCount)
        try await client.shutdown()

        let stats = try stop(process, err, signal: signal)
        XCTAssertEqual(stats.events, 2 * Fixtures.analyticsPythonEventCount)
        XCTAssertEqual(stats.requests, 3)
        XCTAssertEqual(stats.responses, ["200": 2, "401": 1])
    }

    func testCountOnlyCommandStopsGracefullyOnSIGTERM() async throws { try await runCountOnly(signal: SIGTERM) }

    func testCountOnlyCommandStopsGracefullyOnSIGINT() async throws { try await runCountOnly(signal: SIGINT) }

    /// Flags the count-only server does not implement are refused with a usage error naming them.
    func testCountOnlyRefusesFaultStoreAndStrictFlags() throws {
        let refused: [[String]] = [
            ["--fail-rate", "0.1"], ["--fail-status", "503"], ["--throttle-rate", "0.2"], ["--retry-after", "3"],
            ["--reset-rate", "0.1"], ["--latency-ms", "5"], ["--down-after-ms", "1", "--down-for-ms", "5"],
            ["--down-for-ms", "5"], ["--fail-first", "2"], ["--seed", "9"], ["--store", "/tmp/never.ndjson"],
            ["--strict"],
        ]
        for extra in refused {
            let process = Process()
            process.executableURL = try binary()
            process.arguments = ["--write-key", "k", "--count-only"] + extra
            process.standardOutput = Pipe()
            let err = Pipe()
            process.standardError = err
            try process.run()
            let text = String(decoding: try err.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 64, "\(extra): \(text)")  // ArgumentParser's usage error
            XCTAssertTrue(text.contains(extra[0]), "\(extra): \(text)")
            XCTAssertTrue(text.contains("--count-only"), text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/never.ndjson"))
        // --threads is for --count-only only.
        XCTAssertEqual(try exitStatus(["--write-key", "k", "--threads", "2"]), 64)
    }
}
