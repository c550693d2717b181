import Foundation
import Logging
@_spi(PerLine) import MetaRouterDelivery
import ObjectStorage
import ReplayConfiguration
import SystemIO

/// `mr-replay partition`: one worker's share of the partition stage of an identity-exact
/// scale-out (docs/scale-out.md). The worker lists the inputs as every worker does, reads its
/// share once, and writes each line to the shard that owns it and what each line teaches to
/// every shard (``PartitionWorker``).
public enum Partitioner {
    /// Runs worker `options.worker` of `options.workers`, until done or until `stop` is raised
    /// (then its finished segments are kept and a later run goes on from them). Returns what it
    /// did. Throws ``UsageError`` (nothing to keep) and ``InputFailure`` (an object store
    /// refused or stayed unreachable).
    public static func run(config: ReplayConfig, options: PartitionOptionsValue, stop: StopSignal, logger: Logger) async throws
        -> String
    {
        try await S3HTTPClient.withClient { http in
            try await run(config: config, options: options.options, stop: stop, logger: logger, http: http)
        }
    }

    /// ``run(config:options:stop:logger:)`` with `http`'s client for `s3://` inputs and outputs.
    static func run(config: ReplayConfig, options: PartitionOptions, stop: StopSignal, logger: Logger, http: S3HTTPClient)
        async throws -> String
    {
        let resolved: InputResolver.Resolved
        do {
            resolved = try await InputResolver.resolve(
                options.inputs, s3: config.inputs.s3, http: http, records: config.inputs.shaping.readsRecords)
        } catch let error as InputError {
            throw UsageError(error.message)
        }
        for warning in resolved.warnings { logger.warning("\(warning)") }
        guard !resolved.sources.isEmpty else { throw UsageError("no inputs to partition") }
        let plan = try PartitionPlan(config: config, options: options, sources: resolved.sources)
        let store = try makeStore(
            options.output, config: config, s3: resolved.store, http: http, scratchParent: options.scratchParent)
        if let s3 = resolved.store { stop.whenRequested { s3.cancellation.cancel() } }
        defer { store.workerEnded() }
        let started = ContinuousClock.now
        // Made on its thread, which is the only one that uses it.
        let report = try await ReadingJob.onThread {
            try PartitionWorker(config: config, options: options, store: store, plan: plan, stop: stop).run()
        }
        return summary(report, options: options, plan: plan, store: store, seconds: ReplayRunner.seconds(since: started))
    }

    /// The store at `location`: a directory, or an `s3://` prefix read and written with the
    /// inputs' S3 settings. An S3 store's scratch directory is a new name inside `scratchParent`
    /// (default: the system's temporary directory), made only when a worker writes a part.
    package static func makeStore(
        _ location: String, config: ReplayConfig, s3: S3InputStore?, http: S3HTTPClient, scratchParent: String? = nil
    ) throws -> any PartitionStore {
        guard S3Location.isS3(location) else { return try LocalPartitionStore(directory: location) }
        let store = try s3 ?? S3InputStore(settings: config.inputs.s3, http: http)
        let parent = scratchParent ?? FileManager.default.temporaryDirectory.path
        let unique = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let scratch = parent + "/mr-replay-partition-\(getpid())-\(unique)"
        return try S3PartitionStore(location: location, store: store, scratchDirectory: scratch)
    }

    /// What a worker did, for stderr.
    static func summary(
        _ r: PartitionWorkerReport, options: PartitionOptions, plan: PartitionPlan, store: any PartitionStore, seconds: Double
    ) -> String {
        let who = "worker \(options.worker)/\(options.workers)"
        if r.alreadyDone {
            return "mr-replay partition: \(who) was already finished (\(r.segments) segments in \(store.location)); nothing to do"
        }
        var text = "mr-replay partition: \(who) "
        text += r.stopped ? "stopped (a re-run goes on from its last segment)" : "finished"
        text += " in \(String(format: "%.1f", seconds)) s: \(plan.workerInputs.count) of \(plan.inputCount) inputs, "
        text += "\(r.lines) lines into \(options.shards) shards, \(r.transitions) identity transitions, "
        text += "\(r.segments) segments (\(r.resumedSegments) from an earlier run), \(r.bytesWritten) bytes written to \(store.location)"
        if r.readErrors > 0 { text += "; \(r.readErrors) inputs could not be read to their end (shard 0 dead-letters the rest)" }
        return text
    }
}

/// ``PartitionOptions`` as the command line hands them over.
public struct PartitionOptionsValue: Sendable {
    package var options: PartitionOptions

    /// Options for `inputs` into `shards` shards at `output`, worker `worker` of `workers`.
    public init(inputs: [String], output: String, shards: Int, worker: Int, workers: Int, window: TimeWindow?) {
        options = PartitionOptions(inputs: inputs, output: output, shards: shards)
        options.worker = worker
        options.workers = workers
        options.window = window
    }

    /// Input bytes per segment (the default is 256 MiB).
    public var segmentBytes: UInt64 {
        get { options.segmentBytes }
        set { options.segmentBytes = newValue }
    }
}
