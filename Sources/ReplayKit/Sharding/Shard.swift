@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration

/// How a sharded run splits the work.
public enum ShardMode: String, Sendable, Equatable, CaseIterable {
    /// By identity (`--shard-by identity`, the default): every shard reads every input and
    /// sends the events whose identity hashes to it, so one person's events stay in one shard,
    /// in order, with carry-forward as in an unsharded run.
    case identity
    /// By file (`--shard-by file`): every shard reads only the inputs whose path hashes to it,
    /// and no byte of the others.
    case file
}

/// One shard of a sharded run: shard `index` of `count`, split by identity or by file.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// The shard number, `0..<count`.
    public let index: Int
    /// How many shards there are.
    public let count: Int
    /// How the work is split.
    public let mode: ShardMode

    /// Creates a shard; fails unless `0 <= index < count`.
    public init(index: Int, count: Int, mode: ShardMode = .identity) throws {
        guard count >= 1, index >= 0, index < count else {
            throw UsageError("shard \(index)/\(count) is out of range: need 0 <= K < N")
        }
        self.index = index
        self.count = count
        self.mode = mode
    }

    /// Parses `K/N`.
    public init(parsing text: String, mode: ShardMode = .identity) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw UsageError("--shard expects K/N, for example 0/4; got \"\(text)\"")
        }
        try self.init(index: k, count: n, mode: mode)
    }

    /// The name of this shard's state directory under the run's state directory:
    /// `shard-K-of-N` by identity, `file-shard-K-of-N` by file (the two never share state).
    public var directoryName: String {
        (mode == .file ? "file-" : "") + "shard-\(index)-of-\(count)"
    }

    /// The state directory name of `shard` replaying a partition (`run --partitions`):
    /// `partition-shard-K-of-N`, never shared with a shard that reads the inputs itself.
    public static func partitionDirectoryName(_ shard: Shard) -> String { "partition-shard-\(shard.index)-of-\(shard.count)" }

    /// The shard whose state directory is named `name` (see ``directoryName``), if it is one.
    public init?(directoryName name: String) {
        var parts = name.split(separator: "-")
        var mode = ShardMode.identity
        if parts.first == "file" {
            mode = .file
            parts.removeFirst()
        } else if parts.first == "partition" {
            parts.removeFirst()  // a partitioned shard: identities, read from a partition
        }
        guard parts.count == 4, parts[0] == "shard", parts[2] == "of", let k = Int(parts[1]), let n = Int(parts[3]),
            let shard = try? Shard(index: k, count: n, mode: mode)
        else { return nil }
        self = shard
    }

    /// Whether an event with this identity key belongs to the shard. Events with no key belong to shard 0.
    public func contains(identity key: String?) -> Bool {
        contains(laneKey: key.map { FNV1a.hash($0.utf8) })
    }

    /// ``contains(identity:)`` for an identity given as its FNV-1a hash (a rendered event's lane key).
    package func contains(laneKey: UInt64?) -> Bool {
        guard count > 1 else { return true }
        guard let laneKey else { return index == 0 }
        return LaneRouting.lane(forKey: laneKey, laneCount: count) == index
    }

    /// Whether the input at `relativePath` (its path relative to the argument it came from)
    /// belongs to the shard, by the FNV-1a hash of the path's UTF-8 bytes: the same file goes
    /// to the same shard on every machine and in every run.
    public func contains(relativePath: String) -> Bool {
        guard count > 1 else { return true }
        return LaneRouting.lane(forKey: FNV1a.hash(relativePath.utf8), laneCount: count) == index
    }

    /// Whether `input` belongs to the shard of a file-sharded run, by its ``InputSource/shardName``.
    /// Standard input belongs to shard 0.
    public func contains(input: InputSource) -> Bool {
        input.isStdin ? index == 0 : contains(relativePath: input.shardName)
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }
}
