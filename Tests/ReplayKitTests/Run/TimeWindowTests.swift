import Foundation
import JSONCore
import Logging
@_spi(PerLine) import MetaRouter
import ReplayKit
import ServerTesting
import TestSupport
import Testing
import Timestamps

/// `--since`/`--until` (the time window) and `--limit`.
@Suite final class TimeWindowTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// Epoch milliseconds of an ISO 8601 time with a zone, read by Foundation (not by ``Timestamp``).
    static func foundationMillis(_ text: String) throws -> Int64 {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        let date = try #require(f.date(from: text) ?? plain.date(from: text), "\(text)")
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    @Test func optionsParseWithAndWithoutZone() throws {
        let w = try TimeWindow(since: "2024-05-01", until: "2024-05-01T12:00:00+02:00")
        #expect(w.sinceMillis == (try Self.foundationMillis("2024-05-01T00:00:00Z")), "a date is midnight UTC")
        #expect(w.untilMillis == (try Self.foundationMillis("2024-05-01T10:00:00Z")))
        #expect(
            try TimeWindow(since: "2024-05-01T10:00", until: nil).sinceMillis == (try Self.foundationMillis("2024-05-01T10:00:00Z")),
            "no zone means UTC")
        #expect(try TimeWindow(since: nil, until: nil).isUnbounded)
        #expect(w.description == "since 2024-05-01T00:00:00.000Z until 2024-05-01T10:00:00.000Z")
        #expect(throws: UsageError.self) { try TimeWindow(since: "May 1st", until: nil) }
        #expect(throws: UsageError.self) { try TimeWindow(since: "2024-05-02", until: "2024-05-01") }
        #expect(throws: UsageError.self) { try TimeWindow(since: "2024-05-01T10:00Z", until: "2024-05-01T12:00+02:00") }
        // Stored in the checkpoint and read back to the same instants.
        let decoded = try JSONDecoder().decode(TimeWindow.self, from: try JSONEncoder().encode(w))
        #expect(decoded == w)
    }

    /// `since` is inclusive, `until` exclusive, to the millisecond, whatever zone the event uses.
    @Test func boundariesAreInclusiveSinceAndExclusiveUntil() throws {
        let identity = try IdentityStore(stateDirectory: nil)
        defer { identity.close() }
        let enricher = Enricher(config: try testConfig(), identity: identity)
        enricher.preparer.setWindow(try TimeWindow(since: "2024-05-01T10:00:00Z", until: "2024-05-01T11:00:00Z"))
        let cases: [(String, Bool)] = [
            ("2024-05-01T09:59:59.999Z", false), ("2024-05-01T10:00:00.000Z", true), ("2024-05-01T12:00:00+02:00", true),
            ("2024-05-01T10:59:59.999Z", true), ("2024-05-01T11:00:00Z", false), ("2024-05-01T12:59:59.999+02:00", true),
            ("2024-05-01T11:30:00", false), ("2024-05-01T10:30", true), ("2024-04-30", false),
        ]
        for (k, (time, inside)) in cases.enumerated() {
            let result = enrich(enricher, #"{"type":"track","event":"E","anonymousId":"a","timestamp":"\#(time)"}"#, lineNumber: k + 1)
            if inside {
                #expect(try eventObject(result)["timestamp"] == .string(time), "\(time) is inside")
            } else {
                #expect(result == .skipped(.outsideWindow), "\(time) is outside")
            }
        }
        #expect(enricher.stats.skipped["outside_window"] == cases.filter { !$0.1 }.count)
    }

    /// An event without `timestamp` is placed by the rule that gives it its time: its
    /// `originalTimestamp`, else the replay time with `default_timestamp: now`; with `none` it is
    /// dead-lettered `missing_timestamp` (not filtered).
    @Test func eventsWithoutTimestampTakeTheDefaultTimestampRule() throws {
        let identity = try IdentityStore(stateDirectory: nil)
        defer { identity.close() }
        let window = try TimeWindow(since: "2024-05-01T00:00:00Z", until: "2024-06-01T00:00:00Z")
        func enricher(_ yaml: String, now: String) throws -> Enricher {
            let nowMillis = try Self.foundationMillis(now)
            let e = Enricher(config: try testConfig(yaml), identity: identity, nowMillis: { nowMillis })
            e.preparer.setWindow(window)
            return e
        }
        let none = try enricher("", now: "2024-05-15T00:00:00Z")
        #expect(reason(enrich(none, #"{"type":"track","event":"E","anonymousId":"a"}"#)) == "missing_timestamp")
        let original = #"{"type":"track","event":"E","anonymousId":"a","originalTimestamp":"#
        #expect(enrich(none, original + #""2024-04-30T23:59:59Z"}"#) == .skipped(.outsideWindow))
        #expect(try eventObject(enrich(none, original + #""2024-05-01T00:00:00Z"}"#))["originalTimestamp"] != nil)
        let inside = try enricher("enrichment: { default_timestamp: now }", now: "2024-05-15T00:00:00Z")
        let stamped = try eventObject(enrich(inside, #"{"type":"track","event":"E","anonymousId":"a"}"#))
        #expect(stamped["timestamp"] == .string("2024-05-15T00:00:00.000Z"))
        let outside = try enricher("enrichment: { default_timestamp: now }", now: "2026-01-01T00:00:00Z")
        #expect(enrich(outside, #"{"type":"track","event":"E","anonymousId":"a"}"#) == .skipped(.outsideWindow))
    }

    // MARK: - Runs

    /// One event per minute from 2024-05-01T10:00Z; returns the file and each line's messageId.
    func writeMinutes(_ count: Int, name: String = "in.ndjson") throws -> (path: String, ids: [String]) {
        var lines: [String] = []
        var ids: [String] = []
        for i in 0..<count {
            let ts = Timestamp.iso8601(epochMillis: try Self.foundationMillis("2024-05-01T10:00:00Z") + Int64(i) * 60_000)
            ids.append("w-\(i)")
            lines.append(#"{"type":"track","event":"E","anonymousId":"a-\#(i % 7)","messageId":"w-\#(i)","timestamp":"\#(ts)"}"#)
        }
        let path = "\(dir)/\(name)"
        try writeFile(path, lines.joined(separator: "\n") + "\n")
        return (path, ids)
    }

    func run(
        _ config: String, _ inputs: [String], window: TimeWindow? = nil, limit: Int? = nil, fresh: Bool = false
    ) async throws -> RunReport {
        var options = RunOptions(inputs: inputs)
        options.window = window
        options.limit = limit
        options.fresh = fresh
        options.progress = .off
        var logger = Logger(label: "test-window")
        logger.logLevel = .error
        let runner = ReplayRunner(config: try ConfigLoader.load(path: config, environment: [:]), options: options, logger: logger)
        return try await runner.run()
    }

    @Test func eventsOutsideTheWindowCountAsFilteredAndAreNotSent() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (path, ids) = try writeMinutes(120)
            let config = try writeRunConfig(dir: dir, url: target.url)
            // 10:30 (inclusive) to 11:15 (exclusive): minutes 30...74.
            let window = try TimeWindow(since: "2024-05-01T10:30:00Z", until: "2024-05-01T11:15:00Z")
            let report = try await run(config, [path], window: window)
            let got = try await target.received()
            #expect(Set(got.events.keys) == Set(ids[30..<75]))
            #expect(report.events.delivered == 45)
            #expect(report.events.filtered == 75)
            #expect(report.inputs.first?.filtered == 75)
            #expect(report.inputs.first?.skipped["outside_window"] == nil, "counted once, as filtered")
            #expect(report.events.read == report.events.delivered + report.events.filtered)
            #expect(report.status == .completed)
            #expect(report.summary.contains("45 delivered, 0 dead-lettered, 75 filtered"), "\(report.summary)")
            let mirror = try String(contentsOfFile: "\(dir)/state/checkpoint.json", encoding: .utf8)
            #expect(mirror.contains("\"since\" : \"2024-05-01T10:30:00.000Z\""), "\(mirror)")
        }
    }

    /// `--limit N` hands exactly N events over (all delivered here) and ends as a complete run
    /// with its checkpoint after the N-th event; the next run continues right after it.
    @Test func limitStopsAfterExactlyNDeliveredAndTheNextRunContinues() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (path, ids) = try writeMinutes(300)
            try writeFile(path, "\n" + (try String(contentsOfFile: path, encoding: .utf8)))  // a blank first line
            let config = try writeRunConfig(dir: dir, url: target.url)
            let first = try await run(config, [path], limit: 70)
            #expect(first.events.delivered == 70)
            #expect(first.status == .completed && first.status.exitCode == 0)
            #expect(first.stopReason?.contains("--limit 70") == true, "\(first.summary)")
            #expect(first.inputs.first?.checkpointLine == 71, "the blank line and the first 70 events")
            #expect(first.inputs.first?.completed == false)
            let second = try await run(config, [path], limit: 70)
            #expect(second.events.delivered == 70)
            let rest = try await run(config, [path])
            #expect(rest.events.delivered == 160)
            #expect(rest.stopReason == nil)
            #expect(rest.inputs.first?.completed == true)
            let got = try await target.received()
            #expect(Set(got.events.keys) == Set(ids))
            #expect(got.copies.values.allSatisfy { $0 == 1 }, "no event was sent twice")
        }
    }

    /// A limited, windowed run leaves a checkpoint; the next run without --since/--until keeps
    /// the stored window, and so does one that asks for the same window.
    @Test func resumeKeepsTheStoredWindow() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (path, ids) = try writeMinutes(120)
            let config = try writeRunConfig(dir: dir, url: target.url)
            let window = try TimeWindow(since: "2024-05-01T10:30:00Z", until: "2024-05-01T11:15:00Z")
            let first = try await run(config, [path], window: window, limit: 20)
            #expect(first.events.delivered == 20)
            let second = try await run(config, [path], limit: 10)  // no window given: the stored one applies
            #expect(second.events.delivered == 10)
            #expect(second.warnings.contains { $0.contains("time window: \(window)") }, "\(second.warnings)")
            let third = try await run(config, [path], window: try TimeWindow(since: "2024-05-01T12:30+02:00", until: "2024-05-01T11:15Z"))
            #expect(third.events.delivered == 15)
            #expect(third.events.filtered == 45, "lines 61-120 are read: minutes 75-119 are outside")
            let got = try await target.received()
            #expect(Set(got.events.keys) == Set(ids[30..<75]))
        }
    }

    /// A different window (or one where the checkpoint had none) is refused before anything is
    /// sent, saying what is stored, what was asked and how to start fresh; --fresh starts over.
    @Test func resumeWithADifferentWindowIsRefused() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (path, _) = try writeMinutes(60)
            let config = try writeRunConfig(dir: dir, url: target.url)
            let stored = try TimeWindow(since: "2024-05-01T10:10:00Z", until: nil)
            _ = try await run(config, [path], window: stored, limit: 5)
            let other = try TimeWindow(since: "2024-05-01T10:20:00Z", until: nil)
            do {
                _ = try await run(config, [path], window: other)
                Issue.record("a different window was accepted")
            } catch let error as UsageError {
                #expect(error.description.contains("since 2024-05-01T10:10:00.000Z"), "\(error)")
                #expect(error.description.contains("since 2024-05-01T10:20:00.000Z"), "\(error)")
                #expect(error.description.contains("--fresh"), "\(error)")
            }
            let fresh = try await run(config, [path], window: other, fresh: true)
            #expect(fresh.events.delivered == 40)
            // A checkpoint made without a window refuses one too.
            let plain = try writeMinutes(10, name: "plain.ndjson").path
            try FileManager.default.createDirectory(atPath: dir + "/plain", withIntermediateDirectories: true)
            let plainConfig = try writeRunConfig(dir: dir + "/plain", url: target.url)
            #expect(try await run(plainConfig, [plain], limit: 3).events.delivered == 3)
            await #expect(throws: UsageError.self) { _ = try await self.run(plainConfig, [plain], window: other) }
            _ = try await target.received()
        }
    }
}
