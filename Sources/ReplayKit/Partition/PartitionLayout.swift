/// The names of a partition's objects, relative to its location (a directory or an `s3://`
/// prefix). A worker's parts are visible under their final names only once complete, and its
/// manifest only once all its parts are; a run reads only what manifests list.
///
/// ```
/// manifests/worker-W-of-M.json                     a finished worker's manifest
/// progress/worker-W-of-M.json                      a worker's finished segments, for a re-run after a kill
/// parts/worker-W/segment-SSSSSS/shard-K-of-N.zst   shard K's lines of the segment
/// parts/worker-W/segment-SSSSSS/transitions.zst    what the segment's lines teach the identity store
/// status/shard-K-of-N.json                         a replaying shard's progress, for status
/// ```
package enum PartitionLayout {
    /// The manifest of worker `worker` of `workers`.
    package static func manifest(worker: Int, of workers: Int) -> String { "manifests/worker-\(worker)-of-\(workers).json" }

    /// The progress record of worker `worker` of `workers`.
    package static func progress(worker: Int, of workers: Int) -> String { "progress/worker-\(worker)-of-\(workers).json" }

    /// The folder of one segment.
    static func segment(worker: Int, index: Int) -> String {
        let digits = String(index)
        return "parts/worker-\(worker)/segment-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// Shard `shard`'s part of a segment.
    package static func part(worker: Int, segment: Int, shard: Int, of shards: Int) -> String {
        Self.segment(worker: worker, index: segment) + "/shard-\(shard)-of-\(shards).zst"
    }

    /// The transitions part of a segment.
    package static func transitions(worker: Int, segment: Int) -> String {
        Self.segment(worker: worker, index: segment) + "/transitions.zst"
    }

    /// Where shard `shard` of `shards` reports its progress.
    static func shardStatus(shard: Int, of shards: Int) -> String { "status/shard-\(shard)-of-\(shards).json" }

    /// The manifests folder.
    static let manifests = "manifests/"
    /// The shard status folder.
    static let statusFolder = "status/"
}
