import Foundation

/// The end-of-run report, written to `<state_dir>/report.json`.
///
/// Counts add up: `events.read` = `delivered` + `dead_lettered` + `filtered` + `pending`, where
/// `pending` is only non-zero when the run stopped before settling everything.
public struct RunReport: Codable, Sendable, Equatable {
    /// How the run ended.
    public enum Status: String, Codable, Sendable {
        case completed
        case completedWithDrops = "completed_with_drops"
        case interrupted
        case stoppedTransient = "stopped_transient"
        case failedFatal = "failed_fatal"

        /// The process exit code for this status.
        public var exitCode: Int32 {
            switch self {
            case .completed: 0
            case .completedWithDrops: 1
            case .failedFatal: 3
            case .interrupted, .stoppedTransient: 75
            }
        }
    }

    /// Event counts.
    public struct Events: Codable, Sendable, Equatable {
        public var read = 0
        public var delivered = 0
        public var deadLettered = 0
        public var skippedBlank = 0
        public var filtered = 0
        public var pending = 0
        /// Events skipped because an earlier run already settled them.
        public var resumedPast = 0

        enum CodingKeys: String, CodingKey {
            case read, delivered, pending, filtered
            case deadLettered = "dead_lettered"
            case skippedBlank = "skipped_blank"
            case resumedPast = "resumed_past"
        }
    }

    /// Batch counts.
    public struct Batches: Codable, Sendable, Equatable {
        public var sent = 0
        public var succeeded = 0
        public var retried = 0
        public var split = 0
    }

    /// Circuit breaker counts.
    public struct Breaker: Codable, Sendable, Equatable {
        public var opened = 0
    }

    /// Throughput.
    public struct Throughput: Codable, Sendable, Equatable {
        public var eventsPerSecond: Double = 0
        enum CodingKeys: String, CodingKey { case eventsPerSecond = "events_per_second" }
    }

    /// One input's counts and position.
    public struct Input: Codable, Sendable, Equatable {
        public var path: String
        public var read = 0
        public var delivered = 0
        public var deadLettered = 0
        public var skippedBlank = 0
        public var filtered = 0
        public var checkpointOffset: UInt64 = 0
        public var checkpointLine = 0
        public var completed = false

        enum CodingKeys: String, CodingKey {
            case path, read, delivered, filtered, completed
            case deadLettered = "dead_lettered"
            case skippedBlank = "skipped_blank"
            case checkpointOffset = "checkpoint_offset"
            case checkpointLine = "checkpoint_line"
        }
    }

    public var status: Status = .completed
    /// Why the run stopped early, when it did.
    public var stopReason: String?
    public var events = Events()
    /// Dead-letter reason → count.
    public var deadLetterReasons: [String: Int] = [:]
    public var batches = Batches()
    /// HTTP status (or `network_error`) → count.
    public var responses: [String: Int] = [:]
    public var breaker = Breaker()
    public var throughput = Throughput()
    public var durationSeconds: Double = 0
    public var startedAt = ""
    public var finishedAt = ""
    /// Where the events went (the endpoint URL, or the embedded collector's file).
    public var destination = ""
    /// The dead-letter file.
    public var deadLetterFile = ""
    /// Shard `K/N`, when sharded.
    public var shard: String?
    /// Privacy actions (advertisingId removed, properties dropped, ...).
    public var privacy: [String: Int] = [:]
    /// The settings used, with the write key masked.
    public var settings: [String: String] = [:]
    public var inputs: [Input] = []

    enum CodingKeys: String, CodingKey {
        case status, events, batches, responses, breaker, throughput, destination, shard, privacy, settings, inputs
        case stopReason = "stop_reason"
        case deadLetterReasons = "dead_letter_reasons"
        case durationSeconds = "duration_seconds"
        case startedAt = "started_at"
        case finishedAt = "finished_at"
        case deadLetterFile = "dead_letter_file"
    }

    /// Creates an empty report.
    public init() {}

    /// The report as pretty, key-sorted JSON.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// A short human summary for stderr.
    public var summary: String {
        var lines: [String] = []
        lines.append("mr-replay: \(status.rawValue)\(stopReason.map { " (\($0))" } ?? "") in \(String(format: "%.1f", durationSeconds)) s")
        lines.append(
            "  events: \(events.read) read, \(events.delivered) delivered, \(events.deadLettered) dead-lettered, "
                + "\(events.filtered) filtered, \(events.skippedBlank) blank lines"
                + (events.pending > 0 ? ", \(events.pending) pending (a re-run resumes)" : "")
                + (events.resumedPast > 0 ? "; resumed past \(events.resumedPast) lines settled earlier" : ""))
        if !deadLetterReasons.isEmpty {
            let reasons = deadLetterReasons.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            lines.append("  dead-letter reasons: \(reasons)  -> \(deadLetterFile)")
        }
        lines.append(
            "  batches: \(batches.sent) sent, \(batches.succeeded) succeeded, \(batches.retried) retried, "
                + "\(batches.split) split; breaker opened \(breaker.opened)x")
        if !responses.isEmpty {
            lines.append("  responses: " + responses.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
        lines.append("  throughput: \(Int(throughput.eventsPerSecond)) events/s; destination: \(destination)")
        return lines.joined(separator: "\n")
    }
}
