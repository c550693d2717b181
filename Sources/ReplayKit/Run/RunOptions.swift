@_spi(PerLine) import MetaRouter

/// What `mr-replay run` was asked to do, beyond the config file.
public struct RunOptions: Sendable {
    /// The input arguments: files, directories, globs, or `-` for stdin.
    public var inputs: [String]
    /// Overrides `state_dir` from the config.
    public var stateDirectory: String?
    /// Ignore the checkpoint and start over.
    public var fresh = false
    /// Process only one shard of the identities.
    public var shard: Shard?
    /// Progress output.
    public var progress: ProgressMode = .automatic
    /// How long in-flight batches get to settle after a stop request.
    public var stopGrace: Duration = .seconds(5)
    /// How often the checkpoint is written while running.
    public var checkpointInterval: Duration = .seconds(1)
    /// `--since`/`--until`: send only the events whose time is in this window. `nil` keeps the
    /// window of the checkpoint being continued (none for a first run); see ``TimeWindow``.
    public var window: TimeWindow?
    /// `--limit`: stop reading once this many events were handed to the destination (at least
    /// 1); the run then settles them and ends with its checkpoint, as a complete run does.
    public var limit: Int?

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

/// One shard of a sharded run: events whose identity hashes to `index` out of `count`.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// The shard number, `0..<count`.
    public let index: Int
    /// How many shards there are.
    public let count: Int

    /// Creates a shard; fails unless `0 <= index < count`.
    public init(index: Int, count: Int) throws {
        guard count >= 1, index >= 0, index < count else {
            throw UsageError("shard \(index)/\(count) is out of range: need 0 <= K < N")
        }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw UsageError("--shard expects K/N, for example 0/4; got \"\(text)\"")
        }
        try self.init(index: k, count: n)
    }

    /// The name of this shard's state directory under the run's state directory: `shard-K-of-N`.
    public var directoryName: String { "shard-\(index)-of-\(count)" }

    /// The shard whose state directory is named `name` (see ``directoryName``), if it is one.
    public init?(directoryName name: String) {
        let parts = name.split(separator: "-")
        guard parts.count == 4, parts[0] == "shard", parts[2] == "of", let k = Int(parts[1]), let n = Int(parts[3]),
            let shard = try? Shard(index: k, count: n)
        else { return nil }
        self = shard
    }

    /// Whether an event with this identity key belongs to the shard. Events with no key belong to shard 0.
    public func contains(identity key: String?) -> Bool {
        contains(laneKey: key.map { FNV1a.hash($0.utf8) })
    }

    /// ``contains(identity:)`` for an identity given as its FNV-1a hash (``LineResult``'s lane key).
    func contains(laneKey: UInt64?) -> Bool {
        guard count > 1 else { return true }
        guard let laneKey else { return index == 0 }
        return LaneRouting.lane(forKey: laneKey, laneCount: count) == index
    }

    public var description: String { "\(index)/\(count)" }
}

/// A mistake in how the command was called.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public let description: String
    /// Creates a usage error.
    public init(_ description: String) { self.description = description }
}
