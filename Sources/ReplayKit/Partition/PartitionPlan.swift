import Foundation
import ReplayConfiguration

/// What `mr-replay partition` was asked to do.
package struct PartitionOptions: Sendable {
    /// The input arguments (files, directories, globs, `s3://` prefixes), as for `run`.
    package var inputs: [String]
    /// Where the partition goes: a directory or `s3://bucket/prefix/`.
    package var output: String
    /// This worker, of how many.
    package var worker = 0
    package var workers = 1
    /// How many identity shards.
    package var shards: Int
    /// `--since`/`--until`: the lines outside teach nothing (the run skips them as outside its
    /// window, which it takes from the partition).
    package var window: TimeWindow?
    /// Input bytes per segment: parts are cut and published this often.
    package var segmentBytes: UInt64 = 256 << 20
    /// Where a worker writing to `s3://` keeps its parts before they are uploaded: a directory of
    /// its own is made inside (nil: the system's temporary directory, `TMPDIR` or `/tmp`) and
    /// removed when the worker ends. A local partition keeps them in its own `.tmp/`.
    package var scratchParent: String?

    /// Options for `inputs` into `shards` shards at `output`.
    package init(inputs: [String], output: String, shards: Int) {
        self.inputs = inputs
        self.output = output
        self.shards = shards
    }
}

/// The partition's inputs and settings as one worker sees them: every worker lists the same
/// inputs in the same order, so they all compute the same fingerprints, device anonymousId and
/// cut of the inputs between them.
struct PartitionPlan: Sendable {
    /// One input of the partition.
    struct Input: Sendable {
        var index: Int
        var source: InputSource
        /// The checkpoint key: the absolute path, or `s3://bucket/key`.
        var path: String
        var size: UInt64
        /// An S3 object's ETag, or a file's size and modification time.
        var identity: String
    }

    /// The config's routing and teaching settings (``PartitionSettings/fingerprint``).
    let settings: String
    /// Every input of the partition, in order (``PartitionSettings/inputsFingerprint``).
    let inputsFingerprint: String
    let inputCount: Int
    let deviceAnonymousId: String
    /// This worker's inputs.
    let workerInputs: [Input]
    let window: TimeWindow?

    /// The plan of worker `options.worker` over `sources` (resolved as a run resolves them).
    /// Throws ``UsageError`` for inputs a partition cannot hold.
    init(config: ReplayConfig, options: PartitionOptions, sources: [InputSource]) throws {
        guard options.shards >= 1, options.workers >= 1, options.worker >= 0, options.worker < options.workers else {
            throw UsageError("a partition needs --shards N >= 1 and --worker K/M with 0 <= K < M")
        }
        if config.inputs.maxEventAge.limit(isSnapshot: false) != nil {
            throw UsageError(
                "inputs.max_event_age \(config.inputs.maxEventAge) is counted from when a run starts, which two stages cannot share; "
                    + "partition with --since instead")
        }
        var all: [Input] = []
        for (index, source) in sources.enumerated() {
            guard !source.isStdin else { throw UsageError("standard input cannot be partitioned: workers must read the same inputs") }
            guard source.kind == .ndjson else {
                throw UsageError(
                    "\(source.path) is \(source.kind == .snapshot ? "an SDK snapshot" : "a SimpleAnalytics payload"): partitions hold "
                        + "NDJSON logs; replay it with run (--shard-by file if it needs shards)")
            }
            all.append(try Self.input(index: index, source: source))
        }
        settings = PartitionSettings(config: config, shards: options.shards).fingerprint
        inputsFingerprint = PartitionSettings.inputsFingerprint(all.map { ($0.path, $0.size, $0.identity) })
        inputCount = all.count
        deviceAnonymousId = PartitionSettings.deviceAnonymousId(inputsFingerprint: inputsFingerprint)
        let range = PartitionSettings.inputRange(worker: options.worker, of: options.workers, sizes: all.map(\.size))
        workerInputs = Array(all[range])
        window = options.window
    }

    /// `source` as a partition input.
    static func input(index: Int, source: InputSource) throws -> Input {
        if let object = source.object {
            return Input(index: index, source: source, path: source.path, size: object.size, identity: object.etag)
        }
        let path = URL(fileURLWithPath: source.path).standardizedFileURL.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw UsageError("\(path): cannot be read")
        }
        let size = attributes[.size] as? UInt64 ?? 0
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return Input(index: index, source: source, path: path, size: size, identity: "size \(size), modified \(modified)")
    }

    /// The manifest of a finished worker.
    func manifest(progress: PartitionProgress, options: PartitionOptions, finishedAt: String) -> PartitionManifest {
        PartitionManifest(
            worker: options.worker, workers: options.workers, shards: options.shards, settings: settings,
            inputsFingerprint: inputsFingerprint, inputCount: inputCount, deviceAnonymousId: deviceAnonymousId,
            windowSinceMillis: window?.sinceMillis, windowUntilMillis: window?.untilMillis, inputs: progress.inputs,
            segments: progress.segments, finishedAt: finishedAt)
    }

    /// A worker's manifest found at `name`: it must be this partition's.
    func decodeManifest(_ bytes: [UInt8], name: String, in location: String) throws -> PartitionManifest {
        guard let manifest = try? JSONDecoder().decode(PartitionManifest.self, from: Data(bytes)) else {
            throw UsageError("\(location)/\(name): not a partition manifest (damaged?); remove it to partition again")
        }
        try check(settings: manifest.settings, inputs: manifest.inputsFingerprint, what: "\(location)/\(name)")
        return manifest
    }

    /// A worker's progress found at `name`: it must be this partition's.
    func decodeProgress(_ bytes: [UInt8], name: String, in location: String) throws -> PartitionProgress {
        guard let progress = try? JSONDecoder().decode(PartitionProgress.self, from: Data(bytes)) else {
            throw UsageError("\(location)/\(name): not a partition worker's progress (damaged?); remove it to start the worker over")
        }
        try check(settings: progress.settings, inputs: progress.inputsFingerprint, what: "\(location)/\(name)")
        return progress
    }

    private func check(settings: String, inputs: String, what: String) throws {
        if settings != self.settings {
            throw UsageError("\(what) belongs to a partition made with other settings (shards or config); use another --output")
        }
        if inputs != inputsFingerprint {
            throw UsageError("\(what) belongs to a partition of other inputs (or they changed since); use another --output")
        }
    }

    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()
}
