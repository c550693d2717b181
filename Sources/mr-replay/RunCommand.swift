import ArgumentParser
import CommandLineSupport
import Foundation
import Logging
import ReplayKit

/// `mr-replay run`.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay inputs to the configured destination (resumable). With --dry-run, write the enriched events instead.",
        discussion: ExitStatus.help)

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "State directory (checkpoint, identities, dead letters, report). Default: state_dir from the config.")
    var stateDir: String?

    @Flag(name: .long, help: "Ignore the checkpoint and learned identities, and start over.")
    var fresh = false

    @Flag(name: .long, help: "Do everything except the network: write enriched events as NDJSON.")
    var dryRun = false

    @Option(name: .long, help: "With --dry-run: write events to this file instead of stdout.")
    var output: String?

    @Flag(
        name: .long,
        help: "With --dry-run: print what would be sent to stderr (types, names, time span, where ids came from, dead-letter reasons).")
    var summary = false

    @Option(name: .long, help: "Process only shard K of N (K/N, 0-based), by identity hash. Each shard keeps its own state.")
    var shard: String?

    @Option(name: .long, help: "Number of shards; the shard index comes from JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs).")
    var shards: Int?

    @Option(
        name: .long,
        help:
            "With --shard/--shards: identity (the default) or file. Split by identity (every shard reads every input and sends one share of the identities; carry-forward as unsharded) or by file (every shard reads only its share of the inputs)."
    )
    var shardBy: ShardMode?

    @Option(
        name: .long,
        help:
            "Replay shard K of a partition made by `mr-replay partition` (a directory or s3://bucket/prefix/), with --shard K/N or --shards N, instead of reading inputs."
    )
    var partitions: String?

    @Option(name: .long, help: "With --partitions: wait up to this many seconds for partition workers still running (default 0: exit 75 at once).")
    var partitionWait: Int?

    @Flag(name: .long, help: "If another run holds the state directory, exit 75 at once instead of waiting for it to end.")
    var noWait = false

    @Flag(name: .long, help: "No progress output.")
    var quiet = false

    @Option(
        name: .long,
        help:
            "Send only events whose time (timestamp, else originalTimestamp) is at or after this ISO 8601 time, e.g. 2024-05-01 or 2024-05-01T12:00:00+02:00 (no zone: UTC). Kept by a resume."
    )
    var since: String?

    @Option(name: .long, help: "Send only events whose time is before this ISO 8601 time (exclusive; no zone: UTC). Kept by a resume.")
    var until: String?

    @Option(name: .long, help: "Stop reading after N events were handed to the destination (smoke-test a backfill); run again to continue.")
    var limit: Int?

    @Option(name: .long, help: "Log format: text or json.")
    var logFormat: LogFormat = .text

    @Option(
        name: .long,
        help: "Write the run's figures here in the Prometheus text format (node_exporter textfile collector), atomically, whatever the exit code.")
    var metricsFile: String?

    /// Why `--partitions` cannot go with these options, if it cannot.
    static func partitionMisuse(partitions: String?, inputs: [String], sharded: Bool, shardBy: Bool) -> String? {
        guard partitions != nil else { return nil }
        if !inputs.isEmpty { return "--partitions replays a partition: give no inputs (the partition holds them)" }
        if !sharded { return "--partitions needs --shard K/N, or --shards N with JOB_COMPLETION_INDEX" }
        if shardBy { return "--shard-by does not apply with --partitions (the partition is split by identity)" }
        return nil
    }

    /// Why a combination of options cannot be what the user meant, if it cannot.
    static func misuse(dryRun: Bool, output: String?, sharded: Bool, shardByGiven: Bool = false) -> String? {
        if output != nil, !dryRun {
            return "--output only applies with --dry-run; without it the events are sent (add --dry-run, or drop --output)"
        }
        if dryRun, sharded {
            return "--shard and --shards apply to real runs; a dry run shows every event (drop them for the dry run)"
        }
        if shardByGiven, !sharded {
            return "--shard-by applies with --shard K/N or --shards N"
        }
        return nil
    }

    func run() async throws {
        guard let metricsFile, !dryRun else { return try await replay() }
        do {
            try await replay()
        } catch let error where !(error is ExitCode) {
            // Stopped before the run started (a usage or config error): the file says so too.
            let code = (error as? CommandFailure)?.code ?? 2
            writeMetrics(RunMetrics(report: nil, exitCode: code, finishedAt: Date(), stateDirectory: metricsStateDirectory()), to: metricsFile)
            throw error
        }
    }

    func replay() async throws {
        if let problem = Self.misuse(dryRun: dryRun, output: output, sharded: shard != nil || shards != nil, shardByGiven: shardBy != nil) {
            throw CommandFailure.usage("\(problem)")
        }
        if summary, !dryRun {
            throw CommandFailure.usage("--summary applies with --dry-run (add --dry-run, or use `mr-replay validate`)")
        }
        if dryRun, metricsFile != nil {
            throw CommandFailure.usage("--metrics-file applies to real runs; a dry run writes no metrics (drop it for the dry run)")
        }
        var config = try common.loadConfig()
        if let stateDir { config.stateDir = stateDir }
        let window = try timeWindow()
        if dryRun {
            LoggingSystem.bootstrap(StreamLogHandler.standardError)  // stdout may be the events
            try await S3HTTPClient.withClient { http in
                let sources = try await common.resolveInputs(config: config, http: http)
                try DryRun.run(config: config, sources: sources, output: output, window: window, limit: limit, summary: summary)
            }
            return
        }
        let options = try runOptions(config: config, window: window)
        let stateDirectory = options.stateDirectory ?? config.stateDir

        let format = logFormat
        LoggingSystem.bootstrap { label in
            switch format {
            case .json: return JSONLogHandler(label: label)
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .info
                return handler
            }
        }
        var logger = Logger(label: "mr-replay")
        logger.logLevel = .info

        let services = CommandServices(config: config, stateDirectory: stateDirectory, logger: logger)
        let runner = ReplayRunner(
            config: config, options: options, logger: logger, embeddedCollector: services.embeddedCollectorURL,
            eventLoopGroup: services.eventLoopGroup)
        let report: RunReport
        do {
            report = try await services.run(RunService { stop in try await runner.run(stop: stop) })
        } catch let busy as StateDirectoryBusy {
            throw CommandFailure(code: ExitStatus.interrupted, message: busy.description)
        } catch let notReady as PartitionNotReady {
            throw CommandFailure(code: ExitStatus.interrupted, message: "\(notReady); run again once they have (or wait with --partition-wait)")
        } catch let failure as InputFailure {
            throw CommonOptions.failure(failure)  // an S3 store refused (3), nothing there (2), retries ran out (75)
        } catch {
            throw CommandFailure.usage("\(error)")
        }
        if logFormat == .json {
            logger.info(
                "finished",
                metadata: [
                    "status": "\(report.status.rawValue)", "delivered": "\(report.events.delivered)",
                    "dead_lettered": "\(report.events.deadLettered)", "pending": "\(report.events.pending)",
                    "report": "\(stateDirectory)/report.json",
                ])
        } else {
            FileHandle.standardError.write(Data((report.summary + "\n  report: \(stateDirectory)/report.json\n").utf8))
        }
        let code = report.status.exitCode
        if let metricsFile {
            writeMetrics(RunMetrics(report: report, exitCode: code, finishedAt: Date(), stateDirectory: stateDirectory), to: metricsFile)
        }
        if code != 0 { throw ExitCode(code) }
    }

    /// The options of a real run (not a dry run), and its state directory: the shard's own under
    /// the configured one; or exit 2.
    func runOptions(config: ReplayConfig, window: TimeWindow?) throws -> RunOptions {
        if let problem = Self.partitionMisuse(
            partitions: partitions, inputs: common.inputs, sharded: shard != nil || shards != nil, shardBy: shardBy != nil)
        {
            throw CommandFailure.usage(problem)
        }
        if partitions == nil { try common.checkInputs() }
        var options = RunOptions(inputs: common.inputs)
        options.partitions = partitions
        options.partitionWait = .seconds(max(0, partitionWait ?? 0))
        options.window = window
        options.limit = limit
        options.fresh = fresh
        options.progress = quiet ? .off : .automatic
        options.waitForStateDirectory = !noWait
        do {
            options.shard = try resolveShard()
        } catch {
            throw CommandFailure.usage("\(error)")
        }
        var stateDirectory = stateDir ?? config.stateDir
        if let shard = options.shard {
            stateDirectory += "/" + (partitions == nil ? shard.directoryName : Shard.partitionDirectoryName(shard))
        }
        options.stateDirectory = stateDirectory
        return options
    }

    /// Writes the metrics file; a failure is a warning on stderr (the run's exit code stands).
    func writeMetrics(_ metrics: RunMetrics, to path: String) {
        do {
            try MetricsFile.write(metrics, to: path)
        } catch {
            // The error names the file.
            FileHandle.standardError.write(Data("mr-replay: warning: the metrics file was not written: \(error)\n".utf8))
        }
    }

    /// The state directory of a run that did not start, as far as it can be known.
    func metricsStateDirectory() -> String {
        let root =
            stateDir
            ?? (try? ConfigLoader.stateDirectory(
                path: MRReplay.configPath(common.config),
                environment: ProcessInfo.processInfo.environment)) ?? ""
        return ((try? resolveShard()) ?? nil).map { root + "/" + $0.directoryName } ?? root
    }

    /// `--since`/`--until` as a window (nil when neither is given), and `--limit` checked; or exit 2.
    func timeWindow() throws -> TimeWindow? {
        if let limit, limit < 1 { throw CommandFailure.usage("--limit must be at least 1 (got \(limit))") }
        guard since != nil || until != nil else { return nil }
        do {
            return try TimeWindow(since: since, until: until)
        } catch {
            throw CommandFailure.usage("\(error)")
        }
    }

    func resolveShard() throws -> Shard? {
        if let shard {
            return try Shard(parsing: shard, mode: shardBy ?? .identity)
        }
        if let shards {
            guard let text = ProcessInfo.processInfo.environment["JOB_COMPLETION_INDEX"], let index = Int(text) else {
                throw UsageError("--shards needs JOB_COMPLETION_INDEX in the environment (or use --shard K/N)")
            }
            return try Shard(index: index, count: shards, mode: shardBy ?? .identity)
        }
        return nil
    }
}

extension ShardMode: ExpressibleByArgument {}

/// Log output formats.
enum LogFormat: String, ExpressibleByArgument, Sendable {
    case text, json
}
