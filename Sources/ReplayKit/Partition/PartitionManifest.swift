import Foundation

/// What one partition worker wrote, published after all its parts (``PartitionLayout``). A run
/// uses a partition only when all its workers' manifests are there and agree.
struct PartitionManifest: Codable, Sendable, Equatable {
    /// The layout's version.
    var format = 1
    /// This worker's index, and how many workers there are.
    var worker: Int
    var workers: Int
    /// How many identity shards the lines are split into.
    var shards: Int
    /// ``PartitionSettings/fingerprint``: what changes which shard a line goes to and what it
    /// teaches. A run with another config is refused.
    var settings: String
    /// ``PartitionSettings/inputsFingerprint``: the inputs of the whole partition (every
    /// worker's), as this worker listed them.
    var inputsFingerprint: String
    /// How many inputs the whole partition has.
    var inputCount: Int
    /// The anonymousId of lines with neither id (the partition's device anonymousId).
    var deviceAnonymousId: String
    /// The time window (epoch ms) the lines were judged by (`--since`, `--until`).
    var windowSinceMillis: Int64?
    var windowUntilMillis: Int64?
    /// This worker's inputs, in order.
    var inputs: [Input]
    /// Its segments, in order.
    var segments: [Segment]
    /// When it was finished (ISO 8601).
    var finishedAt: String

    /// One input the worker read.
    struct Input: Codable, Sendable, Equatable {
        /// Its index in the partition's input order.
        var index: Int
        /// Its checkpoint key: the absolute path, or `s3://bucket/key`.
        var path: String
        var size: UInt64
        /// What identifies its content: an S3 object's ETag, or a file's fingerprint.
        var identity: String
        /// Lines read (blank lines included).
        var lines: Int
    }

    /// One segment: the parts cut together at one place in the worker's inputs.
    struct Segment: Codable, Sendable, Equatable {
        var index: Int
        /// Shard K's part is `parts[K]`.
        var parts: [Part]
        var transitions: Part
    }

    /// One part.
    struct Part: Codable, Sendable, Equatable {
        /// Its name (``PartitionLayout``).
        var name: String
        /// Its size (compressed) and the hex SHA-256 of its bytes.
        var bytes: UInt64
        var sha256: String
        /// Records of lines (or transitions) it holds.
        var records: Int
    }
}

/// A worker's progress: the segments it finished, and where its next one starts, so that a
/// worker run again after a kill goes on from there.
struct PartitionProgress: Codable, Sendable, Equatable {
    var settings: String
    var inputsFingerprint: String
    var shards: Int
    var segments: [PartitionManifest.Segment]
    /// Per input read so far: its lines.
    var inputs: [PartitionManifest.Input]
    /// Where the next segment starts: the input (its position in the worker's inputs), and the
    /// line and offset to resume it at (nil: its start).
    var nextInput: Int
    var nextLine: Int?
    var nextOffset: UInt64?
}
