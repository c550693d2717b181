import Foundation
import TestSupport
import Testing

@testable import RunReporting

/// The batch journal, its summary line, and the report page.
@Suite struct BatchJournalTests {
    static func problem(batch: Int, statuses: [Int?], outcome: BatchProblem.Outcome, events: Int = 100) -> BatchProblem {
        BatchProblem(
            run: "2026-11-23T00:00:00.000Z", batch: batch, parent: nil, lane: 1, events: events, bytes: 25_000,
            lines: [BatchProblem.Lines(input: "/in/a.ndjson", ranges: [[1, 3], [7, 7]])],
            attempts: statuses.enumerated().map { k, status in
                // Every attempt but the last was retried after a wait.
                BatchProblem.Attempt(
                    at: "t", status: status, error: status == nil ? "reset" : nil,
                    waitMs: k < statuses.count - 1 ? 10 : nil, breaker: "closed")
            },
            outcome: outcome)
    }

    @Test func summaryNamesCausesSplitsAndGivenUpEvents() {
        var tally = ProblemTally()
        #expect(tally.summary == nil, "a clean run has no problem line")
        tally.add(Self.problem(batch: 1, statuses: [503, 503, 200], outcome: .init(result: "delivered")))
        tally.add(Self.problem(batch: 2, statuses: [429, nil, 200], outcome: .init(result: "delivered")))
        tally.add(Self.problem(batch: 3, statuses: [400], outcome: .init(result: "split", children: [4, 5])))
        tally.add(Self.problem(batch: 5, statuses: [400], outcome: .init(result: "gave_up", reason: "rejected_400", events: 1), events: 1))
        #expect(tally.summary == "retried 2 batches (503 x2, 429 x1, reset x1); 1 split; 1 batch gave up 1 event (rejected_400)")
    }

    @Test(arguments: [
        ([5, 1, 2, 3, 9, 10], [[1, 3], [5, 5], [9, 10]]),
        ([4], [[4, 4]]),
        ([2, 2, 3], [[2, 3]]),
    ])
    func linesBecomeRanges(lines: [Int], ranges: [[Int]]) {
        #expect(BatchProblem.Lines.ranges(of: lines) == ranges)
    }

    @Test func journalIsCreatedByTheFirstProblemAndCutsATornLastLine() throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/batches.ndjson"
        do {
            let journal = BatchJournal(path: path)
            _ = journal
        }
        #expect(!FileManager.default.fileExists(atPath: path), "no problem, no file")
        try writeFile(path, #"{"batch":1}"# + "\n" + #"{"batch":2,"run":"#)
        var journal = BatchJournal(path: path)
        journal.append(Self.problem(batch: 7, statuses: [503, 200], outcome: .init(result: "delivered")))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0] == #"{"batch":1}"#)
        let decoded = try JSONDecoder().decode(BatchProblem.self, from: Data(lines[1].utf8))
        #expect(decoded.batch == 7)
        #expect(decoded.attempts.map(\.status) == [503, 200])
        #expect(journal.failure == nil)
    }

    @Test func reportKeepsAHundredProblemsAndCountsTheRest() throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var journal = BatchJournal(path: dir + "/batches.ndjson")
        for k in 0..<130 { journal.append(Self.problem(batch: k, statuses: [503, 200], outcome: .init(result: "delivered"))) }
        #expect(journal.kept.count == BatchJournal.reportCap)
        #expect(journal.omitted == 30)
        let text = try String(contentsOfFile: dir + "/batches.ndjson", encoding: .utf8)
        #expect(text.split(separator: "\n").count == 130, "the journal has every one")
    }

    @Test func timelineStaysBoundedForLongRuns() {
        var timeline = RunTimeline()
        for s in 0..<10_000 { timeline.add(RunTimeline.Sample(seconds: Double(s), delivered: s * 100)) }
        #expect(timeline.samples.count <= RunTimeline.maxSamples)
        #expect(timeline.samples.first?.seconds == 0)
        #expect(timeline.interval >= 8)
        let rates = timeline.rate { $0.delivered }
        #expect(rates.allSatisfy { abs($0.y - 100) < 0.5 }, "thinning keeps the rate")
    }
}
