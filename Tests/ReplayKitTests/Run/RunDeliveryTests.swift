import Collector
import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// End-to-end runs of the pipeline against the in-process collector, with faults injected.
///
/// Serialized, and `.heavy`: each test starts collectors and runs the pipeline against them,
/// one at a time as before and not beside the other suites that do (the rate-limit test
/// measures wall-clock throughput).
@Suite(.serialized, .heavy) final class RunDeliveryTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    @Test func everyValidEventArrivesThroughFaults() async throws {
        let faults = FaultConfiguration(
            seed: 7, failureRate: 0.15, failureStatus: 503, throttleRate: 0.1, retryAfter: 0, resetRate: 0.05,
            latency: .milliseconds(1), down: DownWindow(start: .milliseconds(100), duration: .milliseconds(300)))
        try await RunTarget.run(dir: dir, faults: faults) { target in
            let (text, valid) = generateEvents(count: 1500)
            try writeFile(
                "\(dir)/in.ndjson", text + "not json\n\n{\"type\":\"track\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}\n")
            let config = try writeRunConfig(dir: dir, url: target.url)

            let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
            let got = try await target.received()

            #expect(report.status == .completedWithDrops, "\(report.summary)")
            #expect(got.events.count == valid, "every valid event arrives")
            #expect(report.events.delivered == valid)
            #expect(report.events.deadLettered == 2)
            #expect(report.deadLetterReasons == ["invalid_json": 1, "missing_event_name": 1])
            #expect(report.events.skippedBlank == 1)
            #expect(report.events.read == report.events.delivered + report.events.deadLettered + report.events.filtered)
            #expect(report.events.pending == 0)
            #expect(report.batches.retried > 0)
            #expect(report.responses["503"] ?? 0 > 0)
            #expect(report.responses["429"] ?? 0 > 0)
            #expect(report.inputs.first?.completed == true)
            // Duplicates only come from retried in-flight batches and carry the same messageId.
            let dupes = got.copies.values.filter { $0 > 1 }.count
            #expect(dupes <= report.batches.retried * 50)
            // Carry-forward happened: tracks of identified users carry their userId.
            let tracks = got.events.values.filter { $0["type"] == "track" }
            #expect(tracks.allSatisfy { $0["userId"] != nil || $0["anonymousId"] != nil })
            #expect((tracks.filter { $0["userId"] != nil }.count) > tracks.count / 2)
            let dead = try String(contentsOfFile: "\(dir)/state/dead-letter.ndjson", encoding: .utf8)
            #expect(dead.split(separator: "\n").count == 2)
            #expect(dead.contains("\"reason\":\"invalid_json\""))
        }
    }

    @Test func rejectedEventsAreIsolatedAndDeadLetteredWithTheirReason() async throws {
        // The collector rejects any batch holding an event over 32 KiB with 400; the engine bisects
        // to isolate exactly those events and delivers the rest.
        try await RunTarget.run(dir: dir) { target in
            let (text, valid) = generateEvents(count: 300, bigEveryNth: 50)
            try writeFile("\(dir)/in.ndjson", text)
            let config = try writeRunConfig(dir: dir, url: target.url, extra: "privacy: { drop_properties: [] }")
            try writeFile(
                config,
                try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
                    of: "  max_events: 50", with: "  max_events: 50\n  max_event_bytes: 100000\n  max_bytes: 2000000"))

            let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
            let got = try await target.received()

            let big = (0..<300).filter { $0 % 10 >= 4 && $0 % 50 == 5 }.count
            #expect(big > 0)
            #expect(report.deadLetterReasons["rejected_400"] == big, "\(report.summary)")
            #expect(got.events.count == valid - big)
            #expect(report.events.delivered == valid - big)
            #expect(report.batches.split > 0)
            #expect(report.status == .completedWithDrops)
            let dead = try String(contentsOfFile: "\(dir)/state/dead-letter.ndjson", encoding: .utf8)
            #expect(dead.components(separatedBy: "\"reason\":\"rejected_400\"").count - 1 == big)
            // Each given-up event is dead-lettered with the event itself (as sent, without sentAt).
            var rejectedIds: [String] = []
            for record in dead.split(separator: "\n") {
                let r = try #require(try JSONValue(parsing: Array(record.utf8)).objectValue)
                guard r["reason"]?.stringValue == "rejected_400" else { continue }
                let raw = try #require(r["raw"]?.stringValue, "\(String(record))")
                let event = try #require(try JSONValue(parsing: Array(raw.utf8)).objectValue)
                #expect(event["type"]?.stringValue == "track", "\(raw)")
                rejectedIds.append(try #require(event["messageId"]?.stringValue, "\(raw)"))
            }
            #expect(rejectedIds.count == big)
            #expect(Set(rejectedIds).count == big, "each rejected event is dead-lettered once, with its own content")
        }
    }

    @Test func rateLimitIsRespected() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (text, valid) = generateEvents(count: 600)
            try writeFile("\(dir)/in.ndjson", text)
            let config = try writeRunConfig(dir: dir, url: target.url, extra: "rate_limit: { events_per_second: 400 }")
            let started = ContinuousClock.now
            let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
            let elapsed = ContinuousClock.now - started
            _ = try await target.received()
            #expect(report.events.delivered == valid)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let observed = Double(valid) / seconds
            #expect(observed <= 400 * 1.15, "observed \(observed) events/s over \(seconds) s")
        }
    }

    @Test func fatalStatusStopsWithoutAdvancingTheCheckpoint() async throws {
        try await RunTarget.run(dir: dir, writeKey: "right-key") { target in
            let (text, valid) = generateEvents(count: 200)
            try writeFile("\(dir)/in.ndjson", text)
            let wrong = try writeRunConfig(dir: dir, url: target.url, writeKey: "wrong-key")
            let first = try await replay(config: wrong, inputs: ["\(dir)/in.ndjson"])
            #expect(first.status == .failedFatal)
            #expect(first.status.exitCode == 3)
            #expect(first.responses["401"].map { $0 > 0 } == true)
            #expect(first.events.delivered == 0)
            #expect(first.events.deadLettered == 0, "nothing is discarded on a fatal status")
            #expect(first.events.pending == first.events.read)
            #expect(first.inputs.first?.checkpointLine == 0, "the checkpoint does not pass undelivered events")
            #expect(first.inputs.first?.completed == false)

            let right = try writeRunConfig(dir: dir, url: target.url, writeKey: "right-key")
            let second = try await replay(config: right, inputs: ["\(dir)/in.ndjson"])
            let got = try await target.received()
            #expect(second.status == .completed)
            #expect(got.events.count == valid)
        }
    }

    @Test func transientFailureStopsCleanlyAndTheNextRunResumes() async throws {
        let down = FaultConfiguration(down: DownWindow(start: .zero, duration: .seconds(3600)))
        try await RunTarget.run(dir: dir, name: "outage", faults: down) { outage in
            let (text, valid) = generateEvents(count: 300)
            try writeFile("\(dir)/in.ndjson", text)
            let config = try writeRunConfig(dir: dir, url: outage.url)
            try writeFile(
                config,
                try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
                    of: "max_attempts: 100", with: "max_attempts: 3"))
            let stopped = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
            #expect(stopped.status == .stoppedTransient, "\(stopped.summary)")
            #expect(stopped.status.exitCode == 75)
            #expect(stopped.events.delivered == 0)
            #expect(stopped.events.deadLettered == 0)
            #expect(stopped.events.pending > 0)
            #expect(stopped.breaker.opened > 0)
            _ = try await outage.received()

            try await RunTarget.run(dir: dir, name: "healthy") { healthy in
                let resumed = try await replay(config: try writeRunConfig(dir: dir, url: healthy.url), inputs: ["\(dir)/in.ndjson"])
                let got = try await healthy.received()
                #expect(resumed.status == .completed, "\(resumed.summary)")
                #expect(got.events.count == valid)
                #expect(got.copies.values.max() == 1)
            }
        }
    }

    @Test func resumeSkipsSettledLinesContinuesGrownFilesAndRefusesChangedOnes() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (text, _) = generateEvents(count: 100)
            let input = "\(dir)/in.ndjson"
            try writeFile(input, text)
            let config = try writeRunConfig(dir: dir, url: target.url)
            let first = try await replay(config: config, inputs: [input])
            #expect(first.events.delivered == 100)

            let again = try await replay(config: config, inputs: [input])
            #expect(again.events.read == 0, "a completed input is not read again")
            #expect(again.events.resumedPast == 100)

            let (more, _) = generateEvents(count: 30, seed: 99)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: input))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(more.utf8))
            try handle.close()
            let grown = try await replay(config: config, inputs: [input])
            #expect(grown.events.delivered == 30)
            #expect(grown.inputs.first?.checkpointLine == 130)

            try writeFile(input, "{\"changed\":true}\n" + text + more)
            let refusing = "\(dir)/refuse.yaml"
            try writeFile(refusing, try String(contentsOfFile: config, encoding: .utf8) + "\ninputs:\n  on_changed: refuse\n")
            let refused = await #expect(throws: UsageError.self, "with on_changed: refuse, a changed input must be refused") {
                try await replay(config: refusing, inputs: [input])
            }
            if let refused {
                #expect(refused.description.contains("changed under its checkpoint"), "\(refused.description)")
            }
            // By default it is read again from its start, with a warning.
            let restarted = try await replay(config: config, inputs: [input])
            #expect(restarted.events.read == 131)
            #expect(restarted.events.delivered == 130)
            #expect(restarted.deadLetterReasons == ["missing_type": 1])
            #expect(restarted.inputs.first?.restarted != nil)
            #expect(restarted.warnings.contains { $0.contains("read again from line 1") }, "\(restarted.warnings)")
            // Lines that carried a messageId keep it; generated ids depend on the line number, which moved.
            let got = try await target.received()
            #expect(got.events.count > 130)
        }
    }

    /// A truncated gzip: the lines before the break are delivered and the checkpoint ends at the
    /// last line read (not one past it), so once the file is complete the next run continues with
    /// the right line numbers, and generated messageIds match a clean run's.
    @Test func readErrorCheckpointsTheLastLineReadAndTheCompletedInputContinues() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (text, _) = generateEvents(count: 3_000)
            try writeFile("\(dir)/a.ndjson", text)
            let gz = try gzipFile("\(dir)/a.ndjson")
            let whole = try Data(contentsOf: URL(fileURLWithPath: gz))
            try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: gz))
            let config = try writeRunConfig(dir: dir, url: target.url)
            try seedState("\(dir)/state")
            try seedState("\(dir)/clean")

            let first = try await replay(config: config, inputs: [gz])
            #expect(first.deadLetterReasons == ["read_error": 1], "\(first.summary)")
            let readBeforeTheBreak = first.events.delivered
            #expect(readBeforeTheBreak > 100)
            #expect(readBeforeTheBreak < 3_000)
            #expect(first.inputs.first?.checkpointLine == readBeforeTheBreak, "the last line read, not one past it")
            let dead = try String(contentsOfFile: "\(dir)/state/dead-letter.ndjson", encoding: .utf8)
            #expect(dead.contains("\"line\":\(readBeforeTheBreak + 1)"), "\(dead)")

            try whole.write(to: URL(fileURLWithPath: gz))
            let second = try await replay(config: config, inputs: [gz])
            #expect(second.events.delivered == 3_000 - readBeforeTheBreak, "\(second.summary)")
            #expect(second.inputs.first?.checkpointLine == 3_000)

            let clean = try await replay(config: config, inputs: [gz], stateDir: "\(dir)/clean")
            #expect(clean.events.delivered == 3_000)
            let got = try await target.received()
            #expect(got.events.count == 3_000, "the resumed runs and the clean run sent the same messageIds")
            #expect(got.copies.values.allSatisfy { $0 == 2 })
        }
    }

    /// A line longer than the reader keeps whole is dead-lettered `too_large` with a detail that
    /// says so (not the truncated length as if it were the line's), in a real run as in a dry run.
    @Test func overlongLineIsDeadLetteredAsTruncated() async throws {
        try await RunTarget.run(dir: dir) { target in
            let long = #"{"type":"track","event":"E","anonymousId":"a","properties":{"blob":""# + String(repeating: "x", count: 3 << 20) + #""}}"#
            let (text, _) = generateEvents(count: 10)
            try writeFile("\(dir)/in.ndjson", text + long + "\n")
            let config = try writeRunConfig(dir: dir, url: target.url)
            let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
            #expect(report.events.delivered == 10)
            #expect(report.deadLetterReasons == ["too_large": 1])
            let dead = try String(contentsOfFile: "\(dir)/state/dead-letter.ndjson", encoding: .utf8)
            let record = try #require(try JSONValue(parsing: Array(dead.utf8.dropLast())).objectValue)
            guard case .number(let line)? = record["line"] else {
                Issue.record("no line number: \(dead)")
                return
            }
            #expect(line.intValue == 11)
            let detail = try #require(record["detail"]?.stringValue)
            #expect(detail.contains("line is over 1048576 bytes (raw truncated to its first 1048576)"), "\(detail)")
            #expect(record["raw"]?.stringValue?.utf8.count == 1 << 20)
            _ = try await target.received()

            // A dry run dead-letters it the same way.
            let dryConfig = try testConfig(stateDir: "\(dir)/dry")
            let fd = open("\(dir)/dry.ndjson", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            let stats = try DryRunner.run(config: dryConfig, inputs: [InputSource(path: "\(dir)/in.ndjson", kind: .ndjson)], outputFD: fd)
            close(fd)
            #expect(stats.deadLetters == ["too_large": 1])
            let dryDead = try String(contentsOfFile: "\(dir)/dry/dry-run-dead-letter.ndjson", encoding: .utf8)
            let dryRecord = try #require(try JSONValue(parsing: Array(dryDead.utf8.dropLast())).objectValue)
            #expect(dryRecord["detail"] == record["detail"])
        }
    }

    /// A file whose last line was still being written: the partial line is dead-lettered, and
    /// once the file grew the next run reads that line again, whole, under the same number. A
    /// complete last line without a newline is not sent again when the file did not grow.
    @Test func anUnterminatedLastLineIsReadAgainWholeOnceTheFileGrew() async throws {
        try await RunTarget.run(dir: dir) { target in
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
            #expect(first.events.delivered == 1)
            #expect(first.deadLetterReasons == ["invalid_json": 1])

            let again = try await replay(config: config, inputs: [input])
            #expect(again.events.read == 0, "not grown: nothing is read again")

            try writeFile(input, lineA + "\n" + lineB + "\n" + lineC)  // the writer went on
            let grown = try await replay(config: config, inputs: [input])
            #expect(grown.events.delivered == 2, "\(grown.summary)")
            #expect(grown.deadLetterReasons == [:])
            #expect(grown.inputs.first?.checkpointLine == 3)

            let unchanged = try await replay(config: config, inputs: [input])
            #expect(unchanged.events.read == 0, "a complete last line without a newline is not sent again")

            let clean = try await replay(config: config, inputs: [input], stateDir: "\(dir)/clean")
            #expect(clean.events.delivered == 3)
            let got = try await target.received()
            #expect(Set(got.events.values.compactMap { $0["event"]?.stringValue }) == ["A", "B", "C"])
            #expect(got.events.count == 3, "same messageIds as a clean run: B kept its line number")
            #expect(got.copies.values.sorted() == [2, 2, 2])
        }
    }

    @Test func shardsSplitTheIdentitiesWithoutOverlap() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (text, valid) = generateEvents(count: 400, identities: 37)
            try writeFile("\(dir)/in.ndjson", text)
            let config = try writeRunConfig(dir: dir, url: target.url)
            var delivered = 0
            var filtered = 0
            var reports: [RunReport] = []
            for k in 0..<3 {
                let report = try await replay(
                    config: config, inputs: ["\(dir)/in.ndjson"], stateDir: "\(dir)/state-\(k)", shard: try Shard(index: k, count: 3))
                reports.append(report)
                #expect(report.status == .completed)
                #expect(report.events.delivered > 0, "shard \(k) got some identities")
                delivered += report.events.delivered
                filtered += report.events.filtered
            }
            let got = try await target.received()
            #expect(delivered == valid)
            #expect(filtered == 2 * valid)
            #expect(got.events.count == valid)
            #expect(extraCopiesAreResentBatches(got.copies, reports), "no event is sent by two shards: \(got.copies.filter { $0.value > 1 })")
            #expect(throws: (any Error).self) { try Shard(parsing: "3/3") }
            #expect(throws: (any Error).self) { try Shard(parsing: "x") }
        }
    }

    @Test func embeddedTargetWritesCollectedFile() async throws {
        let (text, valid) = generateEvents(count: 120)
        try writeFile("\(dir)/in.ndjson", text)
        let config = "\(dir)/embedded.yaml"
        try writeFile(config, "ingestion:\n  host: embedded\nstate_dir: \(dir)/state\n")
        let report = try await replay(config: config, inputs: ["\(dir)/in.ndjson"])
        #expect(report.status == .completed)
        #expect(report.destination.contains("collected.ndjson"), "\(report.destination)")
        let got = try RunTarget.read("\(dir)/state/collected.ndjson")
        #expect(got.events.count == valid)
        let saved = try #require(try JSONValue(parsing: try String(contentsOfFile: "\(dir)/state/report.json", encoding: .utf8)).objectValue)
        #expect(saved["status"] == "completed")
        #expect(saved["events"]?.objectValue?["dead_lettered"] != nil)
        #expect(saved["throughput"]?.objectValue?["events_per_second"] != nil)
        #expect(
            try !String(contentsOfFile: "\(dir)/state/report.json", encoding: .utf8).contains("mr-replay-local"),
            "the write key only appears masked")
        // What the run cost: the process's CPU and memory, and its two threads' CPU (it sent
        // over the HTTP transport, so its event loop's is measured too).
        let raw = try String(contentsOfFile: "\(dir)/state/report.json", encoding: .utf8)
        for key in [
            "cpu_seconds", "cpu_user_seconds", "cpu_system_seconds", "reading_thread_cpu_seconds", "delivery_thread_cpu_seconds",
            "peak_resident_bytes",
        ] {
            #expect(raw.contains("\"\(key)\""), "report.json has resources.\(key)")
        }
        let resources = try #require(try JSONDecoder().decode(RunReport.self, from: Data(raw.utf8)).resources)
        #expect(resources.cpuSeconds > 0)
        #expect(abs(resources.cpuSeconds - resources.cpuUserSeconds - resources.cpuSystemSeconds) < 0.002)
        let reading = try #require(resources.readingThreadCPUSeconds)
        let delivery = try #require(resources.deliveryThreadCPUSeconds)
        #expect(reading + delivery <= resources.cpuSeconds + 0.002)
        #expect(resources.peakResidentBytes > 1_000_000)
        #expect(report.resources == resources)
        #expect(report.summary.contains("resources: CPU "))
    }
}
