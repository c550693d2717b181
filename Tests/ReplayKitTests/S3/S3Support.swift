import Foundation
import JSONCore
import Logging
import ReplayKit
import TestSupport
import Testing

/// The S3 tests, against moto's S3 server on loopback (``S3Moto``): the suites in S3/*.swift
/// are nested here, so they share one pair of servers. `.heavy`: they run the whole pipeline.
@Suite(.s3Moto, .heavy, .serialized) struct S3Tests {}

/// NDJSON events that all carry a messageId `<prefix>-<i>`, about `pad + 170` bytes each.
func s3Events(_ prefix: String, count: Int, pad: Int = 40) -> String {
    let padding = String(repeating: "p", count: pad)
    return (0..<count).map { i in
        #"{"type":"track","event":"E\#(i % 7)","anonymousId":"anon-\#(i % 50)","messageId":"\#(prefix)-\#(i)","timestamp":"2024-05-01T10:00:00.000Z","properties":{"i":\#(i),"pad":"\#(padding)"}}"#
    }.joined(separator: "\n") + "\n"
}

/// The messageIds ``s3Events(_:count:pad:)`` gives.
func s3EventIds(_ prefix: String, count: Int) -> Set<String> { Set((0..<count).map { "\(prefix)-\($0)" }) }

/// Writes `text` to `dir/name` (gzip-compressed with `gzip`) and returns the path.
func writeEventsFile(_ dir: String, _ name: String, _ text: String, gzip: Bool = false) throws -> String {
    let path = "\(dir)/\(name)"
    guard gzip else {
        try writeFile(path, text)
        return path
    }
    try writeFile(path + ".plain", text)
    _ = try gzipFile(path + ".plain", to: path)
    try FileManager.default.removeItem(atPath: path + ".plain")
    return path
}

/// Expects every id of `ids` to have arrived, nothing else, and (unless `duplicatesUpTo`) each once.
func expectExactlyOnce(
    _ got: (events: [String: JSONObject], copies: [String: Int]), _ ids: Set<String>, duplicatesUpTo: Int = 0,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let received = Set(got.events.keys)
    let missing = ids.subtracting(received), extra = received.subtracting(ids)
    #expect(missing.isEmpty, "lost \(missing.count) events, e.g. \(missing.sorted().prefix(3))", sourceLocation: sourceLocation)
    #expect(extra.isEmpty, "unexpected events, e.g. \(extra.sorted().prefix(3))", sourceLocation: sourceLocation)
    let duplicates = got.copies.values.reduce(0) { $0 + $1 - 1 }
    #expect(duplicates <= duplicatesUpTo, "\(duplicates) duplicates", sourceLocation: sourceLocation)
}

/// A run config sending to `url`, reading S3 through `moto` (or `endpoint`).
func writeS3RunConfig(
    dir: String, url: String, moto: S3Moto, endpoint: String? = nil, inputsExtra: String = "", extra: String = ""
) throws -> String {
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return try writeRunConfig(
        dir: dir, url: url, extra: moto.configSection(endpoint: endpoint, inputsExtra: inputsExtra, extra: extra))
}

/// Runs the pipeline in process with `environment` (where the AWS keys are looked up).
func replayS3(
    config path: String, inputs: [String], environment: [String: String], stateDir: String? = nil, shard: Shard? = nil
) async throws -> RunReport {
    let config = try ConfigLoader.load(path: path, environment: environment)
    var options = RunOptions(inputs: inputs)
    options.stateDirectory = stateDir
    options.shard = shard
    options.progress = .off
    var logger = Logger(label: "s3-test")
    logger.logLevel = .error
    return try await replayInGroup(config: config, options: options, logger: logger)
}

/// The checkpoint mirror of `stateDir`, or nil when none was written yet.
func readCheckpointMirror(_ stateDir: String) -> Checkpoint? {
    guard let data = FileManager.default.contents(atPath: stateDir + "/checkpoint.json") else { return nil }
    return try? JSONDecoder().decode(Checkpoint.self, from: data)
}

/// The built `mr-replay`, run to its end on a dispatch thread (``runReplayBinary(_:in:stdin:env:)``
/// blocks its thread for the whole run; a test's task must not hold a concurrency-pool thread
/// that long, other suites' tasks need them).
func runReplay(_ args: [String], in dir: String, env: [String: String]) async throws -> (code: Int32, out: String, err: String) {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try runReplayBinary(args, in: dir, env: env) })
        }
    }
}

/// A started `mr-replay` (``launchReplay(_:in:env:)``).
///
/// `@unchecked Sendable` is safe: after `run()`, the process is only asked for its id, whether it
/// runs, and its exit status, which Foundation answers from any thread; the semaphore and the
/// latch are thread-safe.
final class LaunchedReplay: @unchecked Sendable {
    let process: Process
    let stderrPath: String
    private let exited = DispatchSemaphore(value: 0)
    /// Opened when the process ends (a wait on it returns when its task is cancelled, too).
    let ended = Latch()

    init(_ process: Process, stderrPath: String) {
        self.process = process
        self.stderrPath = stderrPath
        let exited = self.exited, ended = self.ended
        process.terminationHandler = { _ in
            exited.signal()
            ended.open()
        }
    }

    var isRunning: Bool { process.isRunning }
    var status: Int32 { process.terminationStatus }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to end, on a dispatch thread.
    func waitForExit() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.exited.wait()
                self.exited.signal()  // later waits return at once
                continuation.resume()
            }
        }
    }
}

/// Starts the built `mr-replay` with `args` in `dir` and `env` as its whole environment; its
/// stderr goes to a file in `dir`.
func launchReplay(_ args: [String], in dir: String, env: [String: String]) throws -> LaunchedReplay {
    let p = Process()
    p.executableURL = try builtBinary("mr-replay")
    p.arguments = args
    p.currentDirectoryURL = URL(fileURLWithPath: dir)
    p.environment = env
    let errPath = "\(dir)/stderr-\(UUID().uuidString.prefix(8)).txt"
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    p.standardOutput = FileHandle.nullDevice
    p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    let launched = LaunchedReplay(p, stderrPath: errPath)
    try p.run()
    return launched
}
