import Collector
import Foundation
import JSONCore
import Logging
import MetaRouter
import ReplayKit
import ServerTesting
import TestSupport

/// A collector running in process for the length of a run test's body, storing to NDJSON so the
/// test can read back what arrived.
struct RunTarget {
    let server: CollectorServer
    let running: RunningServer
    let url: String
    let store: String

    /// Runs `body` with a collector storing to `dir/name.ndjson`; it shuts down when `body` ends.
    static func run<T>(
        dir: String, name: String = "collected", writeKey: String = "test-key", strict: Bool = false,
        faults: FaultConfiguration = .none, body: (RunTarget) async throws -> T
    ) async throws -> T {
        let store = "\(dir)/\(name).ndjson"
        let config = CollectorConfiguration(writeKey: writeKey, store: .ndjson(store), strict: strict, faults: faults)
        let server = CollectorServer(configuration: config, logger: Logger(label: "test-collector"))
        return try await withRunningServer(server) { running in
            try await body(RunTarget(server: server, running: running, url: await server.baseURL, store: store))
        }
    }

    /// The stored events by messageId, with `sentAt` and `writeKey` removed, and how many copies
    /// arrived: read once the collector has shut down (and flushed its store).
    func received() async throws -> (events: [String: JSONObject], copies: [String: Int]) {
        await running.shutdown()
        return try RunTarget.read(store)
    }

    static func read(_ path: String) throws -> (events: [String: JSONObject], copies: [String: Int]) {
        var events: [String: JSONObject] = [:]
        var copies: [String: Int] = [:]
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return ([:], [:]) }
        for line in text.split(separator: "\n") {
            guard var object = try JSONValue(parsing: String(line)).objectValue,
                let id = object["messageId"]?.stringValue
            else { continue }
            object["sentAt"] = nil
            object["writeKey"] = nil
            events[id] = object
            copies[id, default: 0] += 1
        }
        return (events, copies)
    }
}

/// Whether the copies of events beyond the first (`copies`, from ``RunTarget/received()``) are
/// no more than the batches `reports` say were sent again can hold, at
/// ``runConfigMaxEvents`` events each. A request that times out on a slow machine may have been
/// stored, and its batch is sent again; any other copy means two runs sent one event.
func extraCopiesAreResentBatches(_ copies: [String: Int], _ reports: [RunReport]) -> Bool {
    let extra = copies.values.reduce(0) { $0 + $1 - 1 }
    return extra <= reports.map(\.batches.retried).reduce(0, +) * runConfigMaxEvents
}

/// `batching.max_events` of ``writeRunConfig(dir:url:writeKey:extra:)``.
let runConfigMaxEvents = 50

/// A config file pointing at `url`, with fast retries for tests.
func writeRunConfig(dir: String, url: String, writeKey: String = "test-key", extra: String = "") throws -> String {
    let path = "\(dir)/replay.yaml"
    try writeFile(
        path,
        """
        ingestion:
          host: \(url)
          write_key: \(writeKey)
          timeout_seconds: 5
        batching:
          max_events: \(runConfigMaxEvents)
          concurrency: 4
        retry:
          max_attempts: 100
          max_elapsed_seconds: 60
          min_wait_ms: 5
          circuit_breaker: { failure_threshold: 3, cooldown_ms: 20, max_cooldown_ms: 100, jitter: 0 }
        state_dir: \(dir)/state
        \(extra)
        """)
    return path
}

/// Generates `count` NDJSON events over `identities` anonymous ids: identify events followed by
/// tracks that rely on carry-forward, groups, pages and screens; some lines have no messageId.
func generateEvents(count: Int, identities: Int = 20, seed: Int = 1, bigEveryNth: Int = 0) -> (text: String, valid: Int) {
    var lines: [String] = []
    for i in 0..<count {
        let anon = "anon-\((i / 10 + seed) % identities)"
        let ts = "2024-05-01T10:\(String(format: "%02d", (i / 60) % 60)):\(String(format: "%02d", i % 60)).000Z"
        let id = i % 3 == 0 ? "" : #","messageId":"m-\#(seed)-\#(i)""#
        switch i % 10 {
        case 0:
            lines.append(#"{"type":"identify","anonymousId":"\#(anon)","userId":"user-\#(anon)","traits":{"n":\#(i)},"timestamp":"\#(ts)"\#(id)}"#)
        case 1:
            lines.append(#"{"type":"group","anonymousId":"\#(anon)","userId":"user-\#(anon)","groupId":"g-\#(i % 4)","timestamp":"\#(ts)"\#(id)}"#)
        case 2: lines.append(#"{"type":"page","anonymousId":"\#(anon)","name":"P\#(i)","timestamp":"\#(ts)"\#(id)}"#)
        case 3: lines.append(#"{"type":"screen","anonymousId":"\#(anon)","name":"Écran \#(i)","timestamp":"\#(ts)"\#(id)}"#)
        default:
            var props = #"{"i":\#(i),"price":12.50,"tags":["a","ü"],"nested":{"x":null}}"#
            if bigEveryNth > 0, i % bigEveryNth == 5 {
                props = #"{"blob":"\#(String(repeating: "x", count: 40_000))"}"#
            }
            lines.append(#"{"type":"track","anonymousId":"\#(anon)","event":"E\#(i % 5)","properties":\#(props),"timestamp":"\#(ts)"\#(id)}"#)
        }
    }
    return (lines.joined(separator: "\n") + "\n", count)
}

/// Runs the pipeline in process.
func replay(
    config path: String, inputs: [String], stateDir: String? = nil, fresh: Bool = false, shard: Shard? = nil,
    stop: StopSignal = StopSignal()
) async throws -> RunReport {
    let config = try ConfigLoader.load(path: path, environment: [:])
    var options = RunOptions(inputs: inputs)
    options.stateDirectory = stateDir
    options.fresh = fresh
    options.shard = shard
    options.progress = .off
    var logger = Logger(label: "test-run")
    logger.logLevel = .error
    return try await replayInGroup(config: config, options: options, logger: logger, stop: stop)
}

/// Creates the state directory with a fixed device anonymousId, so two state directories
/// enrich identically.
func seedState(_ dir: String) throws {
    let store = try IdentityStore(stateDirectory: dir, makeUUID: { "00000000-0000-4000-8000-00000000d0d0" })
    store.close()
}
