import Foundation
@_spi(PerLine) import MetaRouterDelivery
import RunReporting
import Timestamps

extension RunState {
    /// Journals a batch that was not delivered cleanly on its first attempt. Called by the engine
    /// before it reports the batch's outcomes, so its events' lines are still known.
    func record(_ trace: BatchTrace, run: String, deadLetterFile: String) {
        let lines = counters.withLock { c -> [BatchProblem.Lines] in
            var byInput: [Int: [Int]] = [:]
            for tag in trace.tags {
                guard let entry = c.tracker.entry(tag) else { continue }
                byInput[entry.input, default: []].append(entry.lineNumber)
            }
            return byInput.keys.sorted().map { input in
                BatchProblem.Lines(input: inputPaths[input], ranges: BatchProblem.Lines.ranges(of: byInput[input]!))
            }
        }
        let problem = BatchProblem(
            run: run, batch: trace.id, parent: trace.parent, lane: trace.lane, events: trace.tags.count,
            bytes: trace.bodyBytes, lines: lines, attempts: trace.attempts.map(Self.attempt),
            outcome: Self.outcome(trace, deadLetterFile: deadLetterFile))
        journal.withLock { $0.append(problem) }
    }

    private static func attempt(_ a: BatchTrace.Attempt) -> BatchProblem.Attempt {
        BatchProblem.Attempt(
            at: Timestamp.iso8601(Date(timeIntervalSince1970: Double(a.atMillis) / 1000)),
            status: a.status, error: a.error, retryAfterMs: a.retryAfter.map(milliseconds), waitMs: a.wait.map(milliseconds),
            breaker: a.breaker.rawValue)
    }

    private static func outcome(_ trace: BatchTrace, deadLetterFile: String) -> BatchProblem.Outcome {
        switch trace.outcome {
        case .delivered: BatchProblem.Outcome(result: "delivered")
        case .split(let children): BatchProblem.Outcome(result: "split", children: children)
        case .gaveUp(let reason):
            BatchProblem.Outcome(result: "gave_up", reason: reason, events: trace.tags.count, deadLetterFile: deadLetterFile)
        case .pending: BatchProblem.Outcome(result: "pending")
        }
    }

    private static func milliseconds(_ d: Duration) -> Int {
        Int(d.components.seconds) * 1000 + Int(d.components.attoseconds / 1_000_000_000_000_000)
    }

    /// Adds a sample of the counters to the timeline, if one is due (always when `force`).
    func sample(seconds: Double, engine: DeliveryStats, force: Bool = false) {
        var s = RunTimeline.Sample(seconds: seconds)
        counters.withLock { c in
            s.delivered = c.report.events.delivered
            s.deadLettered = c.report.events.deadLettered
            s.bytesRead = Int64(c.bytesRead)
            s.bytesTotal = Int64(c.bytesTotal)
        }
        s.retries = engine.batchesRetried
        s.breakerOpened = engine.breakerOpened
        s.rateLimitWaits = engine.rateLimitWaits
        s.responses = engine.responses
        timeline.withLock { $0.add(s, force: force) }
    }
}
