import Foundation
import RunReporting

/// What `mr-replay dead-letter retry` did.
public struct DeadLetterRetryReport: Codable, Sendable, Equatable {
    /// How it ended: `completed` (every event sent again was delivered), `completed_with_drops`
    /// (some were dead-lettered again), or why it stopped early (`failed_fatal`,
    /// `stopped_transient`, `interrupted`); ``RunReport/Status/exitCode`` is the exit status.
    public var status: RunReport.Status = .completed
    /// Why it stopped early, when it did.
    public var stopReason: String?
    /// The dead-letter files read, oldest first.
    public var files: [String] = []
    /// Records of the reason asked for that were sent again.
    public var selected = 0
    /// Delivered: removed from the dead-letter files.
    public var delivered = 0
    /// Dead-lettered again (by the enrichment rules or the destination), by their new reason:
    /// kept in place with it.
    public var deadLetteredAgain: [String: Int] = [:]
    /// Settled by a rule without being sent (for example `consent_dropped`): removed, as a run
    /// never stores such events.
    public var settledByRule: [String: Int] = [:]
    /// Not settled because sending stopped early: kept unchanged, for the next retry.
    public var pending = 0
    /// Records of the reason asked for that cannot be sent again (no single event, or no bytes),
    /// by reason: kept unchanged.
    public var notRetryable: [String: Int] = [:]

    enum CodingKeys: String, CodingKey {
        case status, files, selected, delivered, pending
        case stopReason = "stop_reason"
        case deadLetteredAgain = "dead_lettered_again"
        case settledByRule = "settled_by_rule"
        case notRetryable = "not_retryable"
    }

    /// Creates an empty report.
    public init() {}

    /// A short summary for stderr.
    public var summary: String {
        func counts(_ d: [String: Int]) -> String { d.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
        var lines = ["mr-replay dead-letter retry: \(status.rawValue)\(stopReason.map { " (\($0))" } ?? "")"]
        lines.append(
            "  \(CountText.of(selected)) sent again: \(CountText.of(delivered)) delivered (removed), \(CountText.of(deadLetteredAgain.values.reduce(0, +))) dead-lettered again"
                + (deadLetteredAgain.isEmpty ? "" : " (\(counts(deadLetteredAgain)))")
                + (settledByRule.isEmpty ? "" : ", \(settledByRule.values.reduce(0, +)) settled by a rule (\(counts(settledByRule)))")
                + (pending > 0 ? ", \(pending) pending (kept; retry again)" : ""))
        if !notRetryable.isEmpty { lines.append("  kept, cannot be sent again: \(counts(notRetryable))") }
        lines.append("  files: \(files.isEmpty ? "none" : files.joined(separator: ", "))")
        return lines.joined(separator: "\n")
    }
}
