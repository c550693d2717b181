import Foundation
import Logging
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import NIOPosix
import ServerTesting
import Synchronization
import TestSupport
import Testing

@testable import ReplayKit

/// The batch journal of real runs: against the test collector, with injected 503s, one 429 with
/// `Retry-After: 2`, and one event the collector rejects.
@Suite(.serialized) struct BatchJournalRunTests {
    /// Sends through `inner`, but answers the 7th request 429 with `Retry-After: 2` and every
    /// 20th 503 itself, without sending.
    static func faulty(_ inner: LeanHTTPTransport) -> ScriptedTransport {
        ScriptedTransport(forwardingTo: inner) { i, _ in
            let n = i + 1
            if n == 7 { return .status(429, headers: [("Retry-After", "2")]) }
            if n % 20 == 0 { return .status(503, headers: []) }
            return nil
        }
    }

    static func run(dir: String, config: String, transport: (any DeliveryTransport)?) async throws -> RunReport {
        let loaded = try ConfigLoader.load(path: config, environment: [:])
        var options = RunOptions(inputs: ["\(dir)/in.ndjson"])
        options.progress = .off
        var logger = Logger(label: "journal-test")
        logger.logLevel = .error
        return try await ReplayRunner(config: loaded, options: options, logger: logger, transport: transport).run()
    }

    static func journal(_ dir: String) throws -> [BatchProblem] {
        let text = try String(contentsOfFile: "\(dir)/state/batches.ndjson", encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        return try text.split(separator: "\n").map { try JSONDecoder().decode(BatchProblem.self, from: Data($0.utf8)) }
    }

    @Test func journalHoldsExactlyTheRetriedSplitAndDroppedBatches() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await RunTarget.run(dir: dir) { target in
            // 3,000 events; line 1501 is one over the collector's 32 KiB limit (400 for its batch).
            var (text, valid) = generateEvents(count: 3000)
            var lines = text.split(separator: "\n").map(String.init)
            let big =
                #"{"type":"track","event":"Big","anonymousId":"big-1","timestamp":"2026-11-20T10:00:00Z","properties":{"blob":"\#(String(repeating: "x", count: 40_000))"}}"#
            lines.insert(big, at: 1500)
            text = lines.joined(separator: "\n") + "\n"
            valid += 1
            try writeFile("\(dir)/in.ndjson", text)
            let config = try writeRunConfig(dir: dir, url: target.url, extra: "privacy: { drop_properties: [] }")
            try writeFile(
                config,
                try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
                    of: "  max_events: 50", with: "  max_events: 50\n  max_event_bytes: 100000\n  max_bytes: 2000000"))
            let http = LeanHTTPTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, maxConnectionsPerHost: 4)
            let faulty = Self.faulty(http)
            // Shut down whatever the run does, so no connection outlives the test.
            let outcome: Result<RunReport, any Error>
            do { outcome = .success(try await Self.run(dir: dir, config: config, transport: faulty)) } catch { outcome = .failure(error) }
            await http.shutdown()
            let report = try outcome.get()
            _ = try await target.received()

            #expect(report.status == .completedWithDrops, "\(report.summary)")
            #expect(report.events.delivered == valid - 1)
            let journal = try Self.journal(dir)
            // The answers the transport gave itself (a forwarded request's status comes from the collector).
            var injected: [Int: Int] = [:]
            for r in faulty.requests where r.index + 1 == 7 || (r.index + 1) % 20 == 0 { injected[r.statusCode ?? 0, default: 0] += 1 }
            #expect(injected[429] == 1 && (injected[503] ?? 0) >= 2)
            // Every injected failure is an attempt in the journal, in order, with what followed.
            let failed = journal.flatMap(\.attempts).filter { $0.status == 503 || $0.status == 429 }
            #expect(failed.filter { $0.status == 503 }.count == injected[503])
            let throttled = try #require(failed.first { $0.status == 429 })
            #expect(throttled.retryAfterMs == 2000)
            #expect((throttled.waitMs ?? 0) >= 2000)
            for problem in journal {
                #expect(problem.attempts.map(\.at) == problem.attempts.map(\.at).sorted(), "attempts in order")
            }
            // The rejected event: its own batch gave it up, found by halving batches that were split.
            let gaveUp = journal.filter { $0.outcome.result == "gave_up" }
            #expect(gaveUp.count == 1)
            let dropped = try #require(gaveUp.first)
            #expect(dropped.outcome.reason == "rejected_400")
            #expect(dropped.events == 1)
            #expect(dropped.lines == [BatchProblem.Lines(input: "\(dir)/in.ndjson", ranges: [[1501, 1501]])])
            var parent = dropped.parent
            var child = dropped.batch
            var chain = 0
            while let id = parent, let up = journal.first(where: { $0.batch == id }) {
                #expect(up.outcome.result == "split")
                #expect(up.outcome.children?.contains(child) == true, "batch \(up.batch) names its piece \(child)")
                child = up.batch
                parent = up.parent
                chain += 1
            }
            #expect(chain >= 1, "the rejected event was isolated by splitting")
            #expect(parent == nil, "the chain ends at a journaled root batch")
            // No clean batch is journaled: each record was retried, split, gave up, or came from a split.
            for problem in journal {
                #expect(problem.attempts.count > 1 || problem.parent != nil || problem.outcome.result != "delivered")
            }
            // The report has the same records, and the summary line names the causes.
            #expect(report.batches.problems == journal)
            let summary = try #require(report.batches.problemSummary)
            #expect(summary.contains("429 x1") && summary.contains("503 x\(injected[503]!)"))
            #expect(summary.contains("gave up 1 event (rejected_400)"))
            #expect(FileManager.default.fileExists(atPath: "\(dir)/state/report.html"))
        }
    }

    @Test func cleanRunWritesNoJournal() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await RunTarget.run(dir: dir) { target in
            let (text, _) = generateEvents(count: 500)
            try writeFile("\(dir)/in.ndjson", text)
            let config = try writeRunConfig(dir: dir, url: target.url)
            let report = try await Self.run(dir: dir, config: config, transport: nil)
            _ = try await target.received()
            #expect(report.status == .completed)
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/state/batches.ndjson"))
            #expect(report.batches.problems.isEmpty && report.batches.problemSummary == nil)
            let html = try String(contentsOfFile: "\(dir)/state/report.html", encoding: .utf8)
            #expect(html.contains("data-series=\"delivered\""))
            #expect(html.contains("every batch was delivered on its first attempt"))
        }
    }
}
