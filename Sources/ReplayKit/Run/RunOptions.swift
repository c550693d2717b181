@_spi(PerLine) import MetaRouterDelivery

/// What `mr-replay run` was asked to do, beyond the config file.
public struct RunOptions: Sendable {
    /// The input arguments: files, directories, globs, or `-` for stdin.
    public var inputs: [String]
    /// Overrides `state_dir` from the config.
    public var stateDirectory: String?
    /// Ignore the checkpoint and start over.
    public var fresh = false
    /// Process only one shard: of the identities, or of the inputs (``Shard/mode``).
    public var shard: Shard?
    /// `--partitions`: replay ``shard`` of the partition at this location (a directory or an
    /// `s3://` prefix) instead of reading ``inputs`` (docs/scale-out.md).
    public var partitions: String?
    /// How long to wait for a partition whose workers have not all finished (0: not at all).
    public var partitionWait: Duration = .zero
    /// Progress output.
    public var progress: ProgressMode = .automatic
    /// How long in-flight batches get to settle after a stop request.
    public var stopGrace: Duration = .seconds(5)
    /// How often the checkpoint is written while running.
    public var checkpointInterval: Duration = .seconds(1)
    /// The checkpoint is also written once this many identity mappings were learned since the
    /// last one, so the memory holding them until they are committed (64 bytes each)
    /// stays bounded however fast lines are read.
    public var mappingsPerCheckpoint = 65_536
    /// `--since`/`--until`: send only the events whose time is in this window. `nil` keeps the
    /// window of the checkpoint being continued (none for a first run); see ``TimeWindow``.
    public var window: TimeWindow?
    /// `--limit`: stop reading once this many events were handed to the destination (at least
    /// 1); the run then settles them and ends with its checkpoint, as a complete run does.
    public var limit: Int?

    /// When another run holds the state directory: wait for it to end (true, the default), or
    /// stop at once with ``StateDirectoryBusy`` (`--no-wait`). See ``StateDirectoryLock``.
    public var waitForStateDirectory = true

    /// Creates options for `inputs`.
    public init(inputs: [String]) { self.inputs = inputs }
}

/// How progress is shown.
public enum ProgressMode: Sendable, Equatable {
    /// A live line on a terminal, a log line every 10 s otherwise.
    case automatic
    /// No progress output.
    case off
    /// Always a log line every `interval`.
    case log(interval: Duration)
}
