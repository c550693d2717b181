import Foundation

/// The end-of-run report, written to `<state_dir>/report.json`.
///
/// Counts add up: `events.read` = `delivered` + `dead_lettered` + `filtered` + `expired` +
/// `consent_dropped` + `already_delivered` + `pending`, where `pending` is only non-zero when the
/// run stopped before settling everything.
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
            case .completed: ExitStatus.delivered
            case .completedWithDrops: ExitStatus.deadLettered
            case .failedFatal: ExitStatus.refused
            case .interrupted, .stoppedTransient: ExitStatus.interrupted
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
        /// Older than the input's `max_event_age`: not sent, not dead-lettered.
        public var expired = 0
        /// Not sent, not stored: consent denied it (or a later revocation in its queue purged it).
        public var consentDropped = 0
        /// Events read again that earlier runs had already settled: past a resumed input's
        /// checkpoint (by line), or in a rewritten snapshot (by messageId). Not sent again.
        public var alreadyDelivered = 0
        public var pending = 0
        /// Events skipped because an earlier run already settled them.
        public var resumedPast = 0

        enum CodingKeys: String, CodingKey {
            case read, delivered, pending, filtered, expired
            case deadLettered = "dead_lettered"
            case skippedBlank = "skipped_blank"
            case resumedPast = "resumed_past"
            case consentDropped = "consent_dropped"
            case alreadyDelivered = "already_delivered"
        }

        /// `, 2 expired, 1 consent_dropped` for the events settled by a rule, or nothing.
        package var settledByRules: String {
            [(expired, "expired"), (consentDropped, "consent_dropped"), (alreadyDelivered, "already_delivered")]
                .filter { $0.0 > 0 }.map { ", \($0.0) \($0.1)" }.joined()
        }

    }

    /// Batch counts, and the batches that were not delivered cleanly on their first attempt.
    public struct Batches: Codable, Sendable, Equatable {
        public var sent = 0
        public var succeeded = 0
        public var retried = 0
        public var split = 0
        /// The first problem batches of the run (also in the batch journal), in the order they ended.
        package var problems: [BatchProblem] = []
        /// Problem batches beyond ``problems``, only in the journal.
        public var problemsOmitted = 0
        /// `retried 37 batches (503 x52, 429 x11, reset x3); 2 split; ...`, or nil for a clean run.
        public var problemSummary: String?
        /// The batch journal, when the run wrote to it.
        public var journal: String?

        enum CodingKeys: String, CodingKey {
            case sent, succeeded, retried, split, problems, journal
            case problemsOmitted = "problems_omitted"
            case problemSummary = "problem_summary"
        }

        /// Zero counts.
        public init() {}

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            func count(_ key: CodingKeys) throws -> Int { try c.decodeIfPresent(Int.self, forKey: key) ?? 0 }
            sent = try count(.sent)
            succeeded = try count(.succeeded)
            retried = try count(.retried)
            split = try count(.split)
            problems = try c.decodeIfPresent([BatchProblem].self, forKey: .problems) ?? []
            problemsOmitted = try count(.problemsOmitted)
            problemSummary = try c.decodeIfPresent(String.self, forKey: .problemSummary)
            journal = try c.decodeIfPresent(String.self, forKey: .journal)
        }
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

        /// Zero counts for the input at `path`.
        package init(path: String) { self.path = path }
        public var read = 0
        public var delivered = 0
        public var deadLettered = 0
        public var skippedBlank = 0
        public var filtered = 0
        /// Events settled by a rule (expired, consent, already delivered), by skip reason.
        public var skipped: [String: Int] = [:]
        public var checkpointOffset: UInt64 = 0
        public var checkpointLine = 0
        public var completed = false
        /// Why the input was read again from its start, when it changed under its checkpoint.
        public var restarted: String?

        enum CodingKeys: String, CodingKey {
            case path, read, delivered, filtered, completed, skipped, restarted
            case deadLettered = "dead_lettered"
            case skippedBlank = "skipped_blank"
            case checkpointOffset = "checkpoint_offset"
            case checkpointLine = "checkpoint_line"
        }
    }

    /// The version of the report's layout, described by `docs/report.schema.json`; raised when a
    /// field is removed or changes meaning (a new field keeps it). Reports written before it was
    /// introduced read as 0.
    public var schemaVersion = RunReport.currentSchemaVersion
    /// Identifies the run: 8 hex digits, random, and unique with ``startedAt`` (its history file
    /// is `reports/<start>-<run id>.json`).
    public var runId = ""
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
    /// How a sharded run splits the work: `identity` or `file` (``ShardMode``).
    public var shardBy: String?
    /// With `--shard-by file`: the resolved inputs that belong to other shards and were not
    /// read (this shard's own are ``inputs``).
    public var inputsOfOtherShards: Int?
    /// Privacy actions (advertisingId removed, properties dropped, ...).
    public var privacy: [String: Int] = [:]
    /// The settings used, with the write key masked.
    public var settings: [String: String] = [:]
    public var inputs: [Input] = []
    /// What a person should know about the inputs: empty, damaged, restarted, purged.
    public var warnings: [String] = []
    /// The acknowledgment log's counts; nil when the run kept none (a dry run, stdin only).
    public var acknowledgments: Acknowledgments?
    /// CPU time and peak memory; nil in reports of versions that did not measure them.
    public var resources: Resources?

    enum CodingKeys: String, CodingKey {
        case status, events, batches, responses, breaker, throughput, destination, shard, privacy, settings, inputs, warnings
        case acknowledgments, resources
        case schemaVersion = "schema_version"
        case runId = "run_id"
        case stopReason = "stop_reason"
        case deadLetterReasons = "dead_letter_reasons"
        case durationSeconds = "duration_seconds"
        case startedAt = "started_at"
        case finishedAt = "finished_at"
        case deadLetterFile = "dead_letter_file"
        case shardBy = "shard_by"
        case inputsOfOtherShards = "inputs_of_other_shards"
    }

    /// The ``schemaVersion`` this mr-replay writes.
    public static let currentSchemaVersion = 1

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
        if let shard {
            lines.append(
                "  shard \(shard) by \(shardBy ?? "identity")"
                    + (inputsOfOtherShards.map { ": \(inputs.count) input(s) of its own, \($0) of other shards (not read)" } ?? ""))
        }
        lines.append(
            "  events: \(CountText.of(events.read)) read, \(CountText.of(events.delivered)) delivered, \(CountText.of(events.deadLettered)) dead-lettered, "
                + "\(CountText.of(events.filtered)) filtered, \(CountText.of(events.skippedBlank)) blank lines"
                + (events.expired > 0 ? ", \(CountText.of(events.expired)) expired" : "")
                + (events.consentDropped > 0 ? ", \(CountText.of(events.consentDropped)) dropped for consent" : "")
                + (events.alreadyDelivered > 0 ? ", \(CountText.of(events.alreadyDelivered)) already delivered" : "")
                + (events.pending > 0 ? ", \(CountText.of(events.pending)) pending (a re-run resumes)" : "")
                + (events.resumedPast > 0 ? "; resumed past \(CountText.of(events.resumedPast)) lines settled earlier" : ""))
        if let folded = acknowledgments?.foldedLines, folded > 0 {
            lines.append("  resumed: \(CountText.of(folded)) lines the run before acknowledged after its last checkpoint were not sent again")
        }
        if !deadLetterReasons.isEmpty {
            let reasons = deadLetterReasons.sorted { $0.key < $1.key }.map { "\($0.key)=\(CountText.of($0.value))" }.joined(separator: " ")
            lines.append("  dead-letter reasons: \(reasons)  -> \(deadLetterFile)")
        }
        lines.append(
            "  batches: \(CountText.of(batches.sent)) sent, \(CountText.of(batches.succeeded)) succeeded, "
                + "\(CountText.of(batches.retried)) retried, \(CountText.of(batches.split)) split; breaker opened \(breaker.opened)x")
        if let problems = batches.problemSummary {
            lines.append("  problem batches: \(problems)  -> \(batches.journal ?? "batches.ndjson")")
        }
        if !responses.isEmpty {
            lines.append("  responses: " + responses.sorted { $0.key < $1.key }.map { "\($0.key)=\(CountText.of($0.value))" }.joined(separator: " "))
        }
        for warning in warnings.prefix(10) { lines.append("  warning: \(warning)") }
        if warnings.count > 10 { lines.append("  (\(warnings.count - 10) more warnings in the report)") }
        lines.append("  throughput: \(CountText.of(Int(throughput.eventsPerSecond))) events/s; destination: \(destination)")
        if let resources { lines.append("  resources: \(resources.summary)") }
        return lines.joined(separator: "\n")
    }
}

// Reports written by older versions lack the newer counts; they read as zero, so `status`
// keeps showing their last run.
extension RunReport.Events {
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> Int { try c.decodeIfPresent(Int.self, forKey: key) ?? 0 }
        self.init()
        read = try count(.read)
        delivered = try count(.delivered)
        deadLettered = try count(.deadLettered)
        skippedBlank = try count(.skippedBlank)
        filtered = try count(.filtered)
        expired = try count(.expired)
        consentDropped = try count(.consentDropped)
        alreadyDelivered = try count(.alreadyDelivered)
        pending = try count(.pending)
        resumedPast = try count(.resumedPast)
    }
}

extension RunReport.Input {
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> Int { try c.decodeIfPresent(Int.self, forKey: key) ?? 0 }
        self.init(path: try c.decode(String.self, forKey: .path))
        read = try count(.read)
        delivered = try count(.delivered)
        deadLettered = try count(.deadLettered)
        skippedBlank = try count(.skippedBlank)
        filtered = try count(.filtered)
        skipped = try c.decodeIfPresent([String: Int].self, forKey: .skipped) ?? [:]
        checkpointOffset = try c.decodeIfPresent(UInt64.self, forKey: .checkpointOffset) ?? 0
        checkpointLine = try count(.checkpointLine)
        completed = try c.decodeIfPresent(Bool.self, forKey: .completed) ?? false
        restarted = try c.decodeIfPresent(String.self, forKey: .restarted)
    }
}

extension RunReport {
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        schemaVersion = try c.decodeIfPresent(Int.self, forKey: .schemaVersion) ?? 0
        runId = try c.decodeIfPresent(String.self, forKey: .runId) ?? ""
        status = try c.decode(Status.self, forKey: .status)
        stopReason = try c.decodeIfPresent(String.self, forKey: .stopReason)
        events = try c.decode(Events.self, forKey: .events)
        deadLetterReasons = try c.decodeIfPresent([String: Int].self, forKey: .deadLetterReasons) ?? [:]
        batches = try c.decodeIfPresent(Batches.self, forKey: .batches) ?? Batches()
        responses = try c.decodeIfPresent([String: Int].self, forKey: .responses) ?? [:]
        breaker = try c.decodeIfPresent(Breaker.self, forKey: .breaker) ?? Breaker()
        throughput = try c.decodeIfPresent(Throughput.self, forKey: .throughput) ?? Throughput()
        durationSeconds = try c.decodeIfPresent(Double.self, forKey: .durationSeconds) ?? 0
        startedAt = try c.decodeIfPresent(String.self, forKey: .startedAt) ?? ""
        finishedAt = try c.decodeIfPresent(String.self, forKey: .finishedAt) ?? ""
        destination = try c.decodeIfPresent(String.self, forKey: .destination) ?? ""
        deadLetterFile = try c.decodeIfPresent(String.self, forKey: .deadLetterFile) ?? ""
        shard = try c.decodeIfPresent(String.self, forKey: .shard)
        shardBy = try c.decodeIfPresent(String.self, forKey: .shardBy)
        inputsOfOtherShards = try c.decodeIfPresent(Int.self, forKey: .inputsOfOtherShards)
        privacy = try c.decodeIfPresent([String: Int].self, forKey: .privacy) ?? [:]
        settings = try c.decodeIfPresent([String: String].self, forKey: .settings) ?? [:]
        inputs = try c.decodeIfPresent([Input].self, forKey: .inputs) ?? []
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
        acknowledgments = try c.decodeIfPresent(Acknowledgments.self, forKey: .acknowledgments)
        resources = try c.decodeIfPresent(Resources.self, forKey: .resources)
    }
}
