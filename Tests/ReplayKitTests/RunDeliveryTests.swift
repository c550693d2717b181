import Collector
import Foundation
import JSONCore
import XCTest

@testable import ReplayKit

/// End-to-end runs of the pipeline against the in-process collector, with faults injected.
final class RunDeliveryTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testEveryValidEventArrivesThroughFaults() async throws {
        let faults = FaultConfiguration(
            seed: 7, failureRate: 0.15, failureStatus: 503, throttleRate: 0.1, retryAfter: 0, resetRate: 0.05,
            latency: .milliseconds(1), down: DownWindow(start: .milliseconds(100), duration: .milliseconds(300)))
        let target = try await RunTarget.start(dir: dir, faults: faults)
        let (text, valid) = generateEvents(count: 1500)
        try writeFile("\(dir)/in.ndjson", text + "not json\n\n{\"type\":\"track\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}\n")
        let config = try writeRunConfig(dir: dir, url: target.url)

        let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
        let got = try await target.received()

        XCTAssertEqual(report.status, .completedWithDrops, report.summary)
        XCTAssertEqual(got.events.count, valid, "every valid event arrives")
        XCTAssertEqual(report.events.delivered, valid)
        XCTAssertEqual(report.events.deadLettered, 2)
        XCTAssertEqual(report.deadLetterReasons, ["invalid_json": 1, "missing_event_name": 1])
        XCTAssertEqual(report.events.skippedBlank, 1)
        XCTAssertEqual(report.events.read, report.events.delivered + report.events.deadLettered + report.events.filtered)
        XCTAssertEqual(report.events.pending, 0)
        XCTAssertGreaterThan(report.batches.retried, 0)
        XCTAssertGreaterThan(report.responses["503"] ?? 0, 0)
        XCTAssertGreaterThan(report.responses["429"] ?? 0, 0)
        XCTAssertEqual(report.inputs.first?.completed, true)
        // Duplicates only come from retried in-flight batches and carry the same messageId.
        let dupes = got.copies.values.filter { $0 > 1 }.count
        XCTAssertLessThanOrEqual(dupes, report.batches.retried * 50)
        // Carry-forward happened: tracks of identified users carry their userId.
        let tracks = got.events.values.filter { $0["type"] == "track" }
        XCTAssertTrue(tracks.allSatisfy { $0["userId"] != nil || $0["anonymousId"] != nil })
        XCTAssertGreaterThan(tracks.filter { $0["userId"] != nil }.count, tracks.count / 2)
        let dead = try String(contentsOfFile: "\(dir)/state/dead-letter.ndjson", encoding: .utf8)
        XCTAssertEqual(dead.split(separator: "\n").count, 2)
        XCTAssertTrue(dead.contains("\"reason\":\"invalid_json\""))
    }

    func testRejectedEventsAreIsolatedAndDeadLetteredWithTheirReason() async throws {
        // The collector rejects any batch holding an event over 32 KiB with 400; the engine bisects
        // to isolate exactly those events and delivers the rest.
        let target = try await RunTarget.start(dir: dir)
        let (text, valid) = generateEvents(count: 300, bigEveryNth: 50)
        try writeFile("\(dir)/in.ndjson", text)
        let config = try writeRunConfig(dir: dir, url: target.url, extra: "privacy: { drop_properties: [] }")
        try writeFile(config, try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
            of: "  max_events: 50", with: "  max_events: 50\n  max_event_bytes: 100000\n  max_bytes: 2000000"))

        let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
        let got = try await target.received()

        let big = (0..<300).filter { $0 % 10 >= 4 && $0 % 50 == 5 }.count
        XCTAssertGreaterThan(big, 0)
        XCTAssertEqual(report.deadLetterReasons["rejected_400"], big, report.summary)
        XCTAssertEqual(got.events.count, valid - big)
        XCTAssertEqual(report.events.delivered, valid - big)
        XCTAssertGreaterThan(report.batches.split, 0)
        XCTAssertEqual(report.status, .completedWithDrops)
        let dead = try String(contentsOfFile: "\(dir)/state/dead-letter.ndjson", encoding: .utf8)
        XCTAssertEqual(dead.components(separatedBy: "\"reason\":\"rejected_400\"").count - 1, big)
        // Each given-up event is dead-lettered with the event itself (as sent, without sentAt).
        var rejectedIds: [String] = []
        for record in dead.split(separator: "\n") {
            let r = try JSONValue(parsing: Array(record.utf8)).objectValue!
            guard r["reason"]?.stringValue == "rejected_400" else { continue }
            let raw = try XCTUnwrap(r["raw"]?.stringValue, String(record))
            let event = try JSONValue(parsing: Array(raw.utf8)).objectValue!
            XCTAssertEqual(event["type"]?.stringValue, "track", raw)
            rejectedIds.append(try XCTUnwrap(event["messageId"]?.stringValue, raw))
        }
        XCTAssertEqual(rejectedIds.count, big)
        XCTAssertEqual(Set(rejectedIds).count, big, "each rejected event is dead-lettered once, with its own content")
    }

    func testRateLimitIsRespected() async throws {
        let target = try await RunTarget.start(dir: dir)
        let (text, valid) = generateEvents(count: 600)
        try writeFile("\(dir)/in.ndjson", text)
        let config = try writeRunConfig(dir: dir, url: target.url, extra: "rate_limit: { events_per_second: 400 }")
        let started = ContinuousClock.now
        let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
        let elapsed = ContinuousClock.now - started
        _ = try await target.received()
        XCTAssertEqual(report.events.delivered, valid)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let observed = Double(valid) / seconds
        XCTAssertLessThanOrEqual(observed, 400 * 1.15, "observed \(observed) events/s over \(seconds) s")
    }

    func testFatalStatusStopsWithoutAdvancingTheCheckpoint() async throws {
        let target = try await RunTarget.start(dir: dir, writeKey: "right-key")
        let (text, valid) = generateEvents(count: 200)
        try writeFile("\(dir)/in.ndjson", text)
        let wrong = try writeRunConfig(dir: dir, url: target.url, writeKey: "wrong-key")
        let first = try await replay(config: wrong, inputs: ["\(dir)/in.ndjson"])
        XCTAssertEqual(first.status, .failedFatal)
        XCTAssertEqual(first.status.exitCode, 3)
        XCTAssertEqual(first.responses["401"].map { $0 > 0 }, true)
        XCTAssertEqual(first.events.delivered, 0)
        XCTAssertEqual(first.events.deadLettered, 0, "nothing is discarded on a fatal status")
        XCTAssertEqual(first.events.pending, first.events.read)
        XCTAssertEqual(first.inputs.first?.checkpointLine, 0, "the checkpoint does not pass undelivered events")
        XCTAssertEqual(first.inputs.first?.completed, false)

        let right = try writeRunConfig(dir: dir, url: target.url, writeKey: "right-key")
        let second = try await replay(config: right, inputs: ["\(dir)/in.ndjson"])
        let got = try await target.received()
        XCTAssertEqual(second.status, .completed)
        XCTAssertEqual(got.events.count, valid)
    }

    func testTransientFailureStopsCleanlyAndTheNextRunResumes() async throws {
        let down = FaultConfiguration(down: DownWindow(start: .zero, duration: .seconds(3600)))
        let outage = try await RunTarget.start(dir: dir, name: "outage", faults: down)
        let (text, valid) = generateEvents(count: 300)
        try writeFile("\(dir)/in.ndjson", text)
        let config = try writeRunConfig(dir: dir, url: outage.url)
        try writeFile(config, try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
            of: "max_attempts: 100", with: "max_attempts: 3"))
        let stopped = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
        XCTAssertEqual(stopped.status, .stoppedTransient, stopped.summary)
        XCTAssertEqual(stopped.status.exitCode, 75)
        XCTAssertEqual(stopped.events.delivered, 0)
        XCTAssertEqual(stopped.events.deadLettered, 0)
        XCTAssertGreaterThan(stopped.events.pending, 0)
        XCTAssertGreaterThan(stopped.breaker.opened, 0)
        _ = try await outage.received()

        let healthy = try await RunTarget.start(dir: dir, name: "healthy")
        let resumed = try await replay(config: try writeRunConfig(dir: dir, url: healthy.url), inputs: ["\(dir)/in.ndjson"])
        let got = try await healthy.received()
        XCTAssertEqual(resumed.status, .completed, resumed.summary)
        XCTAssertEqual(got.events.count, valid)
        XCTAssertEqual(got.copies.values.max(), 1)
    }

    func testResumeSkipsSettledLinesContinuesGrownFilesAndRefusesChangedOnes() async throws {
        let target = try await RunTarget.start(dir: dir)
        let (text, _) = generateEvents(count: 100)
        let input = "\(dir)/in.ndjson"
        try writeFile(input, text)
        let config = try writeRunConfig(dir: dir, url: target.url)
        let first = try await replay(config: config, inputs: [input])
        XCTAssertEqual(first.events.delivered, 100)

        let again = try await replay(config: config, inputs: [input])
        XCTAssertEqual(again.events.read, 0, "a completed input is not read again")
        XCTAssertEqual(again.events.resumedPast, 100)

        let (more, _) = generateEvents(count: 30, seed: 99)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: input))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(more.utf8))
        try handle.close()
        let grown = try await replay(config: config, inputs: [input])
        XCTAssertEqual(grown.events.delivered, 30)
        XCTAssertEqual(grown.inputs.first?.checkpointLine, 130)

        try writeFile(input, "{\"changed\":true}\n" + text + more)
        let refusing = "\(dir)/refuse.yaml"
        try writeFile(refusing, try String(contentsOfFile: config, encoding: .utf8) + "\ninputs:\n  on_changed: refuse\n")
        do {
            _ = try await replay(config: refusing, inputs: [input])
            XCTFail("with on_changed: refuse, a changed input must be refused")
        } catch let error as UsageError {
            XCTAssertTrue(error.description.contains("changed under its checkpoint"), error.description)
        }
        // By default it is read again from its start, with a warning.
        let restarted = try await replay(config: config, inputs: [input])
        XCTAssertEqual(restarted.events.read, 131)
        XCTAssertEqual(restarted.events.delivered, 130)
        XCTAssertEqual(restarted.deadLetterReasons, ["missing_type": 1])
        XCTAssertNotNil(restarted.inputs.first?.restarted)
        XCTAssertTrue(restarted.warnings.contains { $0.contains("read again from line 1") }, "\(restarted.warnings)")
        // Lines that carried a messageId keep it; generated ids depend on the line number, which moved.
        let got = try await target.received()
        XCTAssertGreaterThan(got.events.count, 130)
    }

    /// A truncated gzip: the lines before the break are delivered and the checkpoint ends at the
    /// last line read (not one past it), so once the file is complete the next run continues with
    /// the right line numbers, and generated messageIds match a clean run's.
    func testReadErrorCheckpointsTheLastLineReadAndTheCompletedInputContinues() async throws {
        let target = try await RunTarget.start(dir: dir)
        let (text, _) = generateEvents(count: 3_000)
        try writeFile("\(dir)/a.ndjson", text)
        let gz = try gzipFile("\(dir)/a.ndjson")
        let whole = try Data(contentsOf: URL(fileURLWithPath: gz))
        try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: gz))
        let config = try writeRunConfig(dir: dir, url: target.url)
        try seedState("\(dir)/state")
        try seedState("\(dir)/clean")

        let first = try await replay(config: config, inputs: [gz])
        XCTAssertEqual(first.deadLetterReasons, ["read_error": 1], first.summary)
        let readBeforeTheBreak = first.events.delivered
        XCTAssertGreaterThan(readBeforeTheBreak, 100)
        XCTAssertLessThan(readBeforeTheBreak, 3_000)
        XCTAssertEqual(first.inputs.first?.checkpointLine, readBeforeTheBreak, "the last line read, not one past it")
        let dead = try String(contentsOfFile: "\(dir)/state/dead-letter.ndjson", encoding: .utf8)
        XCTAssertTrue(dead.contains("\"line\":\(readBeforeTheBreak + 1)"), dead)

        try whole.write(to: URL(fileURLWithPath: gz))
        let second = try await replay(config: config, inputs: [gz])
        XCTAssertEqual(second.events.delivered, 3_000 - readBeforeTheBreak, second.summary)
        XCTAssertEqual(second.inputs.first?.checkpointLine, 3_000)

        let clean = try await replay(config: config, inputs: [gz], stateDir: "\(dir)/clean")
        XCTAssertEqual(clean.events.delivered, 3_000)
        let got = try await target.received()
        XCTAssertEqual(got.events.count, 3_000, "the resumed runs and the clean run sent the same messageIds")
        XCTAssertTrue(got.copies.values.allSatisfy { $0 == 2 })
    }

    /// A line longer than the reader keeps whole is dead-lettered `too_large` with a detail that
    /// says so (not the truncated length as if it were the line's), in a real run as in a dry run.
    func testOverlongLineIsDeadLetteredAsTruncated() async throws {
        let target = try await RunTarget.start(dir: dir)
        let long = #"{"type":"track","event":"E","anonymousId":"a","properties":{"blob":""# + String(repeating: "x", count: 3 << 20) + #""}}"#
        let (text, _) = generateEvents(count: 10)
        try writeFile("\(dir)/in.ndjson", text + long + "\n")
        let config = try writeRunConfig(dir: dir, url: target.url)
        let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
        XCTAssertEqual(report.events.delivered, 10)
        XCTAssertEqual(report.deadLetterReasons, ["too_large": 1])
        let dead = try String(contentsOfFile: "\(dir)/state/dead-letter.ndjson", encoding: .utf8)
        let record = try JSONValue(parsing: Array(dead.utf8.dropLast())).objectValue!
        guard case .number(let line)? = record["line"] else { return XCTFail(dead) }
        XCTAssertEqual(line.intValue, 11)
        let detail = try XCTUnwrap(record["detail"]?.stringValue)
        XCTAssertTrue(detail.contains("line is over 1048576 bytes (raw truncated to its first 1048576)"), detail)
        XCTAssertEqual(record["raw"]?.stringValue?.utf8.count, 1 << 20)
        _ = try await target.received()

        // A dry run dead-letters it the same way.
        let dryConfig = try testConfig(stateDir: "\(dir)/dry")
        let fd = open("\(dir)/dry.ndjson", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let stats = try DryRunner.run(config: dryConfig, inputs: [InputSource(path: "\(dir)/in.ndjson", kind: .ndjson)], outputFD: fd)
        close(fd)
        XCTAssertEqual(stats.deadLetters, ["too_large": 1])
        let dryDead = try String(contentsOfFile: "\(dir)/dry/dry-run-dead-letter.ndjson", encoding: .utf8)
        let dryRecord = try JSONValue(parsing: Array(dryDead.utf8.dropLast())).objectValue!
        XCTAssertEqual(dryRecord["detail"], record["detail"])
    }

    /// A file whose last line was still being written: the partial line is dead-lettered, and
    /// once the file grew the next run reads that line again, whole, under the same number. A
    /// complete last line without a newline is not sent again when the file did not grow.
    func testAnUnterminatedLastLineIsReadAgainWholeOnceTheFileGrew() async throws {
        let target = try await RunTarget.start(dir: dir)
        let lineA = #"{"type":"track","event":"A","anonymousId":"x1","timestamp":"2024-01-01T00:00:00Z"}"#
        let lineB = #"{"type":"track","event":"B","anonymousId":"x1","timestamp":"2024-01-01T00:00:01Z"}"#
        let lineC = #"{"type":"track","event":"C","anonymousId":"x1","timestamp":"2024-01-01T00:00:02Z"}"#
        let input = "\(dir)/in.ndjson"
        let cut = lineB.index(lineB.startIndex, offsetBy: 40)
        try writeFile(input, lineA + "\n" + lineB[..<cut])
        let config = try writeRunConfig(dir: dir, url: target.url)
        try seedState("\(dir)/state")
        try seedState("\(dir)/clean")

        let first = try await replay(config: config, inputs: [input])
        XCTAssertEqual(first.events.delivered, 1)
        XCTAssertEqual(first.deadLetterReasons, ["invalid_json": 1])

        let again = try await replay(config: config, inputs: [input])
        XCTAssertEqual(again.events.read, 0, "not grown: nothing is read again")

        try writeFile(input, lineA + "\n" + lineB + "\n" + lineC)  // the writer went on
        let grown = try await replay(config: config, inputs: [input])
        XCTAssertEqual(grown.events.delivered, 2, grown.summary)
        XCTAssertEqual(grown.deadLetterReasons, [:])
        XCTAssertEqual(grown.inputs.first?.checkpointLine, 3)

        let unchanged = try await replay(config: config, inputs: [input])
        XCTAssertEqual(unchanged.events.read, 0, "a complete last line without a newline is not sent again")

        let clean = try await replay(config: config, inputs: [input], stateDir: "\(dir)/clean")
        XCTAssertEqual(clean.events.delivered, 3)
        let got = try await target.received()
        XCTAssertEqual(Set(got.events.values.compactMap { $0["event"]?.stringValue }), ["A", "B", "C"])
        XCTAssertEqual(got.events.count, 3, "same messageIds as a clean run: B kept its line number")
        XCTAssertEqual(got.copies.values.sorted(), [2, 2, 2])
    }

    func testShardsSplitTheIdentitiesWithoutOverlap() async throws {
        let target = try await RunTarget.start(dir: dir)
        let (text, valid) = generateEvents(count: 400, identities: 37)
        try writeFile("\(dir)/in.ndjson", text)
        let config = try writeRunConfig(dir: dir, url: target.url)
        var delivered = 0
        var filtered = 0
        for k in 0..<3 {
            let report = try await replay(
                config: config, inputs: ["\(dir)/in.ndjson"], stateDir: "\(dir)/state-\(k)", shard: try Shard(index: k, count: 3))
            XCTAssertEqual(report.status, .completed)
            XCTAssertGreaterThan(report.events.delivered, 0, "shard \(k) got some identities")
            delivered += report.events.delivered
            filtered += report.events.filtered
        }
        let got = try await target.received()
        XCTAssertEqual(delivered, valid)
        XCTAssertEqual(filtered, 2 * valid)
        XCTAssertEqual(got.events.count, valid)
        XCTAssertEqual(got.copies.values.max(), 1, "no event is sent by two shards")
        XCTAssertThrowsError(try Shard(parsing: "3/3"))
        XCTAssertThrowsError(try Shard(parsing: "x"))
    }

    func testEmbeddedTargetWritesCollectedFile() async throws {
        let (text, valid) = generateEvents(count: 120)
        try writeFile("\(dir)/in.ndjson", text)
        let config = "\(dir)/embedded.yaml"
        try writeFile(config, "ingestion:\n  host: embedded\nstate_dir: \(dir)/state\n")
        let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
        XCTAssertEqual(report.status, .completed)
        XCTAssertTrue(report.destination.contains("collected.ndjson"), report.destination)
        let got = try RunTarget.read("\(dir)/state/collected.ndjson")
        XCTAssertEqual(got.events.count, valid)
        let saved = try JSONValue(parsing: try String(contentsOfFile: "\(dir)/state/report.json", encoding: .utf8)).objectValue!
        XCTAssertEqual(saved["status"], "completed")
        XCTAssertNotNil(saved["events"]?.objectValue?["dead_lettered"])
        XCTAssertNotNil(saved["throughput"]?.objectValue?["events_per_second"])
        XCTAssertFalse(try String(contentsOfFile: "\(dir)/state/report.json", encoding: .utf8).contains("mr-replay-local"),
                       "the write key only appears masked")
    }
}
