import AsyncHTTPClient
import Collector
import Foundation
import NIOCore
import ServerTestHarness
import ServerTesting
import Testing

/// The `mr-collector` built with the tests (next to the test bundle, whatever the scratch
/// path), else `.build/debug/mr-collector`.
let mrCollectorBinary: URL? = {
    let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("mr-collector")
    if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let url = root.appendingPathComponent(".build/debug/mr-collector")
    return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
}()

/// Runs the built `mr-collector` binary: first stdout line, real requests, graceful stop on
/// signals, exit codes.
@Suite(.enabled(if: mrCollectorBinary != nil, "mr-collector is not built"))
struct CommandTests {
    /// Starts `mr-collector` with `arguments`; returns the process, its stderr and the base URL
    /// from its first stdout line.
    private func launch(_ arguments: [String]) throws -> (Process, Pipe, String) {
        let process = Process()
        process.executableURL = mrCollectorBinary
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
        #expect(first.hasPrefix("mr-collector listening on http://127.0.0.1:"), "\(first)")
        let base = String(first.dropFirst("mr-collector listening on ".count))
        #expect((Int(base.split(separator: ":").last ?? "") ?? 0) > 0)
        return (process, err, base)
    }

    /// Sends SIGINT/SIGTERM, waits for a clean exit and decodes the final stats from stderr.
    private func stop(_ process: Process, _ err: Pipe, signal: Int32) throws -> CollectorStats {
        kill(process.processIdentifier, signal)
        let errText = String(decoding: try err.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errText)")
        return try JSONDecoder().decode(
            CollectorStats.self, from: Data((errText.split(separator: "\n").last ?? "").utf8))
    }

    /// Runs `mr-collector` with `arguments` (expected to exit at once); returns its status and stderr.
    private func runToExit(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = mrCollectorBinary
        process.arguments = arguments
        process.standardOutput = Pipe()
        let err = Pipe()
        process.standardError = err
        try process.run()
        let text = String(decoding: try err.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func stopsGracefullyOnSignal(signal: Int32) async throws {
        let path = temporaryPath(".ndjson")
        defer { removeStoreFiles(path) }
        let (process, err, base) = try launch(
            ["--port", "0", "--write-key", "cli-key", "--store", path, "--base-path", "/x"])
        let h = Posting(client: .shared, base: base)
        let response = try await h.post(Fixtures.analyticsPythonBody, path: "/x/v1/batch", auth: basic("cli-key"))
        let stats = try stop(process, err, signal: signal)
        #expect(response.status == 200)
        #expect(stats.events == Fixtures.analyticsPythonEventCount)
        #expect(stats.responses == ["200": 1])
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == Fixtures.analyticsPythonEventCount)
    }

    /// `--count-only` runs the SwiftNIO count-only server: same first line, same signals, same stats.
    @Test(arguments: [SIGTERM, SIGINT])
    func countOnlyStopsGracefullyOnSignal(signal: Int32) async throws {
        let (process, err, base) = try launch(
            ["--port", "0", "--write-key", "cli-key", "--count-only", "--base-path", "/x"])
        let h = Posting(client: .shared, base: base)
        let body = Array(Fixtures.analyticsPythonBody.utf8)
        let plain = try await h.post(body, path: "/x/v1/batch", auth: basic("cli-key"))
        let zipped = try await h.post(try gzip(body), path: "/x/v1/batch", auth: basic("cli-key"), gzip: true)
        let refused = try await h.post(body, path: "/x/v1/batch", auth: nil)
        let live = try JSONDecoder().decode(CollectorStats.self, from: Data(try await h.get("/x/stats").body.utf8))
        let stats = try stop(process, err, signal: signal)
        #expect([plain.status, zipped.status, refused.status] as [Int] == [200, 200, 401])
        #expect(live.events == 2 * Fixtures.analyticsPythonEventCount)
        #expect(stats.events == 2 * Fixtures.analyticsPythonEventCount)
        #expect(stats.requests == 3)
        #expect(stats.responses == ["200": 2, "401": 1])
    }

    /// Usage errors exit 2 with an `mr-collector: ...` line naming the problem.
    @Test(arguments: [
        (["--write-key", "k", "--oversize-status", "500"], "--oversize-status"),
        (["--port", "0"], "--write-key"),
        (["--write-key", "k", "--threads", "2"], "--threads"),
        (["--write-key", "k", "--count-only", "--threads", "0"], "--threads"),
        (["--write-key", "k", "--fail-rate", "2"], "--fail-rate"),
        (["--write-key", "k", "--no-such-flag"], "--no-such-flag"),
    ])
    func usageErrorsExit2(arguments: [String], named: String) throws {
        let (status, text) = try runToExit(arguments)
        #expect(status == 2, "\(text)")
        #expect(text.hasPrefix("mr-collector: "), "\(text)")
        #expect(text.contains(named), "\(text)")
    }

    /// Flags the count-only server does not implement are refused with a usage error naming them.
    @Test(arguments: [
        ["--fail-rate", "0.1"], ["--fail-status", "503"], ["--throttle-rate", "0.2"], ["--retry-after", "3"],
        ["--reset-rate", "0.1"], ["--latency-ms", "5"], ["--down-after-ms", "1", "--down-for-ms", "5"],
        ["--down-for-ms", "5"], ["--fail-first", "2"], ["--seed", "9"], ["--store", "/tmp/never.ndjson"],
        ["--strict"],
    ])
    func countOnlyRefusesFaultStoreAndStrictFlags(extra: [String]) throws {
        let (status, text) = try runToExit(["--write-key", "k", "--count-only"] + extra)
        #expect(status == 2, "\(extra): \(text)")
        #expect(text.contains(extra[0]), "\(text)")
        #expect(text.contains("--count-only"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.ndjson"))
    }

    /// A port in use: exit 3 with a message naming the address; nothing is printed on stdout.
    @Test(arguments: [[], ["--count-only"]])
    func aPortInUseExits3(extra: [String]) async throws {
        try await Harness.run { h in
            let port = h.server.port
            let (status, text) = try runToExit(["--port", String(port), "--write-key", "k"] + extra)
            await h.stop()
            #expect(status == 3, "\(text)")
            #expect(text.hasPrefix("mr-collector: cannot listen on 127.0.0.1:\(port)"), "\(text)")
        }
    }

    /// A store that cannot be opened is a config error: exit 2.
    @Test func anUnopenableStoreExits2() throws {
        let (status, text) = try runToExit(["--port", "0", "--write-key", "k", "--store", "/nonexistent-dir/x.ndjson"])
        #expect(status == 2, "\(text)")
        #expect(text.hasPrefix("mr-collector: cannot open the store"), "\(text)")
    }

    @Test func helpDocumentsTheExitCodes() throws {
        let (status, _) = try runToExit(["--help"])
        #expect(status == 0)
        let process = Process()
        process.executableURL = mrCollectorBinary
        process.arguments = ["--help"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: try out.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.contains("Exit codes:"), "\(text)")
        #expect(text.contains("3   cannot listen"), "\(text)")
    }
}
