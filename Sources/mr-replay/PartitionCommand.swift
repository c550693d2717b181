import ArgumentParser
import CommandLineSupport
import Foundation
import Logging
import ReplayKit

/// `mr-replay partition`: the first stage of an identity-exact scale-out.
struct Partition: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read the inputs once and split them into identity shards, for `run --partitions` (docs/scale-out.md).",
        discussion: """
            Each of M workers reads its share of the inputs (--worker K/M, or --workers M with the index from \
            JOB_COMPLETION_INDEX) and writes, for each of N shards (--shards N), that shard's lines in input order, \
            and for every shard what each identify, alias, group and logout line teaches. A worker's output is \
            visible only when complete: its parts, then its manifest. A killed worker run again goes on from its \
            last finished segment; a finished one does nothing.

            Exit codes: \(ExitStatus.delivered) done (or already done), \(ExitStatus.usage) usage or config error, \
            \(ExitStatus.refused) an object store refused, \(ExitStatus.interrupted) interrupted or the store stayed \
            unreachable (run again to go on).
            """)

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "Where the partition goes: a directory, or s3://bucket/prefix/ (with the config's inputs.s3 settings).")
    var output: String

    @Option(name: .long, help: "How many identity shards (N): `run --partitions ... --shard K/N` replays one of them.")
    var shards: Int

    @Option(name: .long, help: "This worker, K/M (0-based).")
    var worker: String?

    @Option(name: .long, help: "How many workers (M); the index comes from JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs).")
    var workers: Int?

    @Option(name: .long, help: "Only events at or after this ISO 8601 time teach and are replayed (the run takes the window from the partition).")
    var since: String?

    @Option(name: .long, help: "Only events before this ISO 8601 time (exclusive).")
    var until: String?

    @Option(name: .long, help: "Input bytes per segment, the unit a re-run after a kill goes on from (default 256 MiB).")
    var segmentMegabytes: Int?

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let logger = Logger(label: "mr-replay")
        let config = try common.loadConfig(requireWriteKey: false)
        try common.checkInputs()
        let (k, m) = try workerIndex()
        guard shards >= 1 else { throw CommandFailure.usage("--shards must be at least 1 (got \(shards))") }
        var window: TimeWindow?
        if since != nil || until != nil {
            do { window = try TimeWindow(since: since, until: until) } catch { throw CommandFailure.usage("\(error)") }
        }
        var options = PartitionOptionsValue(inputs: common.inputs, output: output, shards: shards, worker: k, workers: m, window: window)
        if let segmentMegabytes {
            guard segmentMegabytes >= 1 else { throw CommandFailure.usage("--segment-megabytes must be at least 1") }
            options.segmentBytes = UInt64(segmentMegabytes) << 20
        }
        let summary: String
        let given = options
        do {
            summary = try await CommandServices(logger: logger).run(
                RunService { stop in try await Partitioner.run(config: config, options: given, stop: stop, logger: logger) })
        } catch let failure as InputFailure {
            throw CommonOptions.failure(failure)
        } catch let error as UsageError {
            throw CommandFailure.usage("\(error)")
        } catch {
            throw CommandFailure(code: ExitStatus.interrupted, message: "\(error)")
        }
        FileHandle.standardError.write(Data((summary + "\n").utf8))
        if summary.contains(" stopped ") { throw ExitCode(ExitStatus.interrupted) }
    }

    /// `--worker K/M`, or `--workers M` with `JOB_COMPLETION_INDEX`, or worker 0 of 1.
    func workerIndex() throws -> (Int, Int) {
        if let worker {
            let parts = worker.split(separator: "/")
            guard parts.count == 2, let k = Int(parts[0]), let m = Int(parts[1]), m >= 1, k >= 0, k < m else {
                throw CommandFailure.usage("--worker expects K/M with 0 <= K < M, for example 0/4; got \"\(worker)\"")
            }
            return (k, m)
        }
        if let workers {
            guard let text = ProcessInfo.processInfo.environment["JOB_COMPLETION_INDEX"], let k = Int(text), k >= 0, k < workers else {
                throw CommandFailure.usage("--workers needs JOB_COMPLETION_INDEX in the environment, below M (or use --worker K/M)")
            }
            return (k, workers)
        }
        return (0, 1)
    }
}
