import Foundation
import ReplayConfiguration
import RunReporting

/// What `mr-replay status` shows: where each input of a state directory stands, and how the
/// last run ended. It reads only the checkpoint mirror and the report, so it works while a run
/// holds the state database.
public struct StatusReader: Sendable {
    /// One input's standing.
    public struct InputStatus: Codable, Sendable, Equatable {
        public var path: String
        public var line: Int
        public var offset: UInt64
        public var completed: Bool
        /// The file's current size, when it still exists (an S3 object's: its size when checkpointed).
        public var size: UInt64?
        /// Percent of the file's bytes settled (plain files; approximate for gzip).
        public var percent: Double?
        /// Lines after ``line`` that are settled too (delivered while an earlier one was still
        /// in flight): a resumed run reads them again but does not send them.
        public var settledAfter: Int?

        enum CodingKeys: String, CodingKey {
            case path, line, offset, completed, size, percent
            case settledAfter = "settled_after"
        }
    }

    /// The acknowledgment log (`acks/`): what was acknowledged since the last checkpoint. A run
    /// that stopped without a checkpoint left it; the next run folds it in and does not send
    /// those lines again.
    public struct AckLogStatus: Codable, Sendable, Equatable {
        /// Its generation files.
        public var files: Int
        /// Their bytes.
        public var bytes: UInt64
        /// Lines they list (as acknowledged), over every input.
        public var lines: Int
        /// Snapshot messageIds they list.
        public var messageIds: Int

        enum CodingKeys: String, CodingKey {
            case files, bytes, lines
            case messageIds = "message_ids"
        }
    }

    /// One past run, from the run history (`reports/`).
    public struct RunSummary: Codable, Sendable, Equatable {
        public var startedAt: String
        public var runId: String
        public var status: String
        public var exitCode: Int32
        public var delivered: Int
        public var deadLettered: Int
        public var pending: Int
        public var durationSeconds: Double
        /// The history file, under `reports/`.
        public var file: String

        enum CodingKeys: String, CodingKey {
            case status, delivered, pending, file
            case startedAt = "started_at"
            case runId = "run_id"
            case exitCode = "exit_code"
            case deadLettered = "dead_lettered"
            case durationSeconds = "duration_seconds"
        }

        init(file: String, report: RunReport) {
            self.init(
                startedAt: report.startedAt, runId: report.runId, status: report.status.rawValue,
                exitCode: report.status.exitCode, delivered: report.events.delivered,
                deadLettered: report.events.deadLettered, pending: report.events.pending,
                durationSeconds: report.durationSeconds, file: file)
        }

        init(
            startedAt: String, runId: String, status: String, exitCode: Int32, delivered: Int, deadLettered: Int,
            pending: Int, durationSeconds: Double, file: String
        ) {
            self.startedAt = startedAt
            self.runId = runId
            self.status = status
            self.exitCode = exitCode
            self.delivered = delivered
            self.deadLettered = deadLettered
            self.pending = pending
            self.durationSeconds = durationSeconds
            self.file = file
        }
    }

    /// The whole status.
    public struct Status: Codable, Sendable, Equatable {
        public var stateDir: String
        public var updatedAt: String?
        public var inputs: [InputStatus]
        public var lastRun: String?
        public var lastRunFinishedAt: String?
        public var lastRunEvents: RunReport.Events?
        /// The last run's problem-batch summary and its first problem batches.
        public var lastRunProblemSummary: String?
        package var lastRunProblems: [BatchProblem] = []
        /// The last runs, newest first, from the run history.
        public var recentRuns: [RunSummary] = []
        /// The state of each shard (`shard-K-of-N/` under this directory, from `run --shard`).
        public var shards: [Status] = []
        /// Why a shard's state could not be read (the other shards are still shown).
        public var error: String?
        /// For a shard's state: which shard (`K/N`), how it splits the work (`identity` or
        /// `file`), and with `file`, how many inputs of its last run were other shards'.
        public var shard: String?
        public var shardBy: String?
        public var inputsOfOtherShards: Int?
        /// The acknowledgment log, when it has files.
        public var acknowledgments: AckLogStatus?

        enum CodingKeys: String, CodingKey {
            case inputs, shards, error, shard, acknowledgments
            case shardBy = "shard_by"
            case inputsOfOtherShards = "inputs_of_other_shards"
            case stateDir = "state_dir"
            case updatedAt = "updated_at"
            case lastRun = "last_run"
            case lastRunFinishedAt = "last_run_finished_at"
            case lastRunEvents = "last_run_events"
            case lastRunProblemSummary = "last_run_problem_summary"
            case lastRunProblems = "last_run_problems"
            case recentRuns = "recent_runs"
        }
    }

    /// Reads the status of `stateDirectory`, with its last `runs` runs (and as many of each shard's).
    public static func read(stateDirectory: String, runs: Int = StatusReader.runsShown) throws -> Status {
        guard FileManager.default.fileExists(atPath: stateDirectory) else {
            throw UsageError("no state directory at \(stateDirectory): nothing has run there yet")
        }
        let state = try StateDirectory(path: stateDirectory)
        var status = Status(stateDir: stateDirectory, updatedAt: nil, inputs: [], lastRun: nil)
        if let data = FileManager.default.contents(atPath: state.checkpointMirrorPath) {
            let checkpoint = try JSONDecoder().decode(Checkpoint.self, from: data)
            status.updatedAt = checkpoint.updatedAt
            status.inputs = checkpoint.inputs.values.sorted { $0.path < $1.path }.map { cp in
                // An S3 object's size is the one checkpointed: status reads no store.
                let size = cp.isObject ? cp.fingerprint.size : (try? FileManager.default.attributesOfItem(atPath: cp.path)[.size]) as? UInt64
                let percent = size.flatMap { $0 > 0 ? min(100, Double(cp.offset) / Double($0) * 100) : nil }
                return InputStatus(
                    path: cp.path, line: cp.line, offset: cp.offset, completed: cp.completed, size: size,
                    percent: cp.completed ? 100 : percent.map { ($0 * 10).rounded() / 10 },
                    settledAfter: SettledLines(pairs: cp.settledAfter)?.count)
            }
        }
        status.acknowledgments = ackLog(in: state.ackDirectory)
        if let data = FileManager.default.contents(atPath: state.reportPath),
            let report = try? JSONDecoder().decode(RunReport.self, from: data)
        {
            status.lastRun = report.status.rawValue
            status.lastRunFinishedAt = report.finishedAt
            status.lastRunEvents = report.events
            status.lastRunProblemSummary = report.batches.problemSummary
            status.lastRunProblems = report.batches.problems
            status.shard = report.shard
            status.shardBy = report.shardBy
            status.inputsOfOtherShards = report.inputsOfOtherShards
        }
        status.recentRuns = state.history(keep: 0).recent(runs).map { RunSummary(file: $0.file, report: $0.report) }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: stateDirectory)) ?? []
        status.shards = names.compactMap { name in Shard(directoryName: name).map { (name, $0) } }
            .sorted { ($0.1.count, $0.1.index) < ($1.1.count, $1.1.index) }
            .map { name, _ in
                let path = stateDirectory + "/" + name
                do { return try read(stateDirectory: path, runs: runs) } catch {
                    var broken = Status(stateDir: path, updatedAt: nil, inputs: [], lastRun: nil)
                    broken.error = "\(error)"
                    return broken
                }
            }
        return status
    }

    /// What the acknowledgment log in `directory` holds, or nil when it has no files.
    static func ackLog(in directory: String) -> AckLogStatus? {
        let generations = AckLogFiles.generations(in: directory)
        guard !generations.isEmpty else { return nil }
        var log = AckLogStatus(files: generations.count, bytes: 0, lines: 0, messageIds: 0)
        for generation in generations {
            guard let data = FileManager.default.contents(atPath: AckLogFiles.path(directory: directory, generation: generation)) else {
                continue
            }
            log.bytes += UInt64(data.count)
            for ack in AckLogFormat.parse([UInt8](data)).values {
                log.lines += ack.lines.count
                log.messageIds += ack.messageIds.count
            }
        }
        return log
    }

    /// The status as text.
    public static func text(_ s: Status) -> String {
        var lines = ["state: \(s.stateDir)" + (s.updatedAt.map { " (checkpoint \($0))" } ?? "")]
        if let shard = s.shard {
            var owns = "shard \(shard) by \(s.shardBy ?? ShardMode.identity.rawValue)"
            if s.shardBy == ShardMode.file.rawValue {
                owns += ": owns the \(s.inputs.count) input(s) below; \(s.inputsOfOtherShards ?? 0) belong to other shards"
            } else {
                owns += ": reads every input, sends the events whose identity hashes to it"
            }
            lines.append("  " + owns)
        }
        if let error = s.error {
            lines.append("  cannot be read: \(error)")
        } else if s.inputs.isEmpty {
            lines.append(s.shards.isEmpty ? "  no checkpointed inputs" : "  no checkpointed inputs here; shards below")
        }
        for i in s.inputs {
            let where_ = i.completed ? "completed" : "line \(i.line), byte \(i.offset)" + (i.percent.map { " (\($0)%)" } ?? "")
            let after = i.settledAfter.map { "; \($0) lines after it settled (not sent again)" } ?? ""
            lines.append("  \(i.path): \(where_)\(after)" + (i.size == nil ? " [file missing]" : ""))
        }
        if let a = s.acknowledgments {
            lines.append(
                "  acknowledgment log: \(a.files) file(s), \(a.bytes) bytes: \(a.lines) lines"
                    + (a.messageIds > 0 ? " and \(a.messageIds) snapshot events" : "")
                    + " acknowledged after the checkpoint (the next run does not send them again)")
        }
        if let last = s.lastRun {
            let e = s.lastRunEvents
            lines.append(
                "last run: \(last) at \(s.lastRunFinishedAt ?? "?")"
                    + (e.map {
                        ": \(CountText.of($0.read)) read, \(CountText.of($0.delivered)) delivered, \(CountText.of($0.deadLettered)) dead-lettered, \(CountText.of($0.pending)) pending\($0.settledByRules)"
                    } ?? ""))
        }
        if let summary = s.lastRunProblemSummary { lines.append("  problem batches: \(summary)") }
        for p in s.lastRunProblems.prefix(Self.problemsShown) { lines.append("    " + describe(p)) }
        if s.lastRunProblems.count > Self.problemsShown {
            lines.append("    (\(s.lastRunProblems.count - Self.problemsShown) more in report.json and batches.ndjson)")
        }
        if !s.recentRuns.isEmpty {
            lines.append("recent runs (newest first):")
            lines += s.recentRuns.map { "  " + describe($0) }
        }
        for shard in s.shards {
            lines += text(shard).split(separator: "\n").map { "  " + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// How many problem batches `status` lists.
    static let problemsShown = 10

    /// How many runs of the history `status` lists by default.
    public static let runsShown = 5

    /// `2026-11-23T19:15:00Z  3f9a2c1b  completed_with_drops (exit 1)  1,498 delivered, 2 dead-lettered  12.3 s`.
    static func describe(_ run: RunSummary) -> String {
        let started = run.startedAt.count >= 19 ? String(run.startedAt.prefix(19)) + "Z" : run.startedAt
        return "\(started)  \(run.runId)  \(run.status) (exit \(run.exitCode))  \(CountText.of(run.delivered)) delivered, "
            + "\(CountText.of(run.deadLettered)) dead-lettered" + (run.pending > 0 ? ", \(CountText.of(run.pending)) pending" : "")
            + "  " + String(format: "%.1f s", run.durationSeconds)
    }

    /// `batch 12 (lane 3, 100 events, a.ndjson:1201-1300): 503 -> 503 -> 200: delivered`.
    static func describe(_ p: BatchProblem) -> String {
        let lines = p.lines.map { l in
            (l.input as NSString).lastPathComponent + ":"
                + l.ranges.prefix(3).map { $0[0] == $0[1] ? "\($0[0])" : "\($0[0])-\($0[1])" }.joined(separator: ",")
                + (l.ranges.count > 3 ? ",..." : "")
        }.joined(separator: " ")
        let attempts = p.attempts.map { $0.status.map(String.init) ?? $0.error ?? "?" }.joined(separator: " -> ")
        var outcome = p.outcome.result
        if let reason = p.outcome.reason { outcome += " (\(p.outcome.events ?? 0) \(reason))" }
        if let children = p.outcome.children { outcome += " into " + children.map(String.init).joined(separator: ",") }
        return "batch \(p.batch) (lane \(p.lane), \(p.events) events, \(lines)): \(attempts): \(outcome)"
    }
}
