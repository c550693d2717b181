/// Counts over a run's problem batches, for the one-line summary: why attempts failed, how many
/// batches were retried, split or gave events up.
package struct ProblemTally: Sendable, Equatable {
    /// An empty one.
    package init() {}

    /// Batches that needed more than one attempt.
    package var retried = 0
    /// Retried attempts by cause: the status (`503`) or the network error (`reset`).
    package var causes: [String: Int] = [:]
    /// Batches split (413 halving or 400 bisection).
    package var split = 0
    /// Batches that gave events up, and the events given up by reason.
    package var gaveUpBatches = 0
    package var gaveUpEvents: [String: Int] = [:]
    /// Batches still unsettled when the run stopped.
    package var pending = 0

    /// Counts `problem`.
    package mutating func add(_ problem: BatchProblem) {
        // An attempt followed by a wait was retried; a 400 or 413 leads to a split instead.
        let retriedAttempts = problem.attempts.filter { $0.waitMs != nil }
        if !retriedAttempts.isEmpty { retried += 1 }
        for attempt in retriedAttempts {
            causes[attempt.status.map(String.init) ?? attempt.error ?? "error", default: 0] += 1
        }
        switch problem.outcome.result {
        case "split": split += 1
        case "gave_up":
            gaveUpBatches += 1
            gaveUpEvents[problem.outcome.reason ?? "unknown", default: 0] += problem.outcome.events ?? 0
        case "pending": pending += 1
        default: break
        }
    }

    /// `retried 37 batches (503 x52, 429 x11, reset x3); 2 split; 1 batch gave up 1 event (rejected_400)`,
    /// or nil when nothing went wrong.
    package var summary: String? {
        var parts: [String] = []
        if retried > 0 || !causes.isEmpty {
            let why = causes.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) x\(CountText.of($0.value))" }
            parts.append("retried \(CountText.of(retried)) \(retried == 1 ? "batch" : "batches") (\(why.joined(separator: ", ")))")
        }
        if split > 0 { parts.append("\(CountText.of(split)) split") }
        if gaveUpBatches > 0 {
            let events = gaveUpEvents.values.reduce(0, +)
            let reasons = gaveUpEvents.keys.sorted().joined(separator: ", ")
            parts.append(
                "\(CountText.of(gaveUpBatches)) \(gaveUpBatches == 1 ? "batch" : "batches") gave up \(CountText.of(events)) "
                    + "\(events == 1 ? "event" : "events") (\(reasons))")
        }
        if pending > 0 { parts.append("\(CountText.of(pending)) pending at the stop") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
