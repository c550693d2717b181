import Foundation

/// Checkpoints of S3 objects. An object is identified by its ETag, not by a fingerprint of its
/// bytes: its checkpoint records the bucket, the key, the ETag and the size (in
/// ``InputCheckpoint/fingerprint``, whose hashes it leaves empty), with the same offset, line and
/// settled lines as a file's. Objects never grow: another ETag is another object, which
/// `inputs.on_changed` restarts or refuses, as for a changed file.
extension InputCheckpoint {
    /// The checkpoint of an S3 object at `offset` and `line`.
    init(object: S3InputObject, offset: UInt64, line: Int, completed: Bool) {
        self.init(
            path: object.url, offset: offset, line: line, completed: completed,
            fingerprint: FileFingerprint(size: object.size, headLength: 0, headHash: "", windowHash: nil, windowLength: nil))
        bucket = object.bucket
        key = object.key
        etag = object.etag
    }

    /// Whether it is an S3 object's.
    var isObject: Bool { etag != nil || path.hasPrefix("s3://") }

    /// Why `source` is not what this checkpoint was written for, or nil when it is: for a file,
    /// its fingerprint (``FileFingerprint/mismatch(path:offset:)``); for an S3 object, its ETag.
    func mismatch(_ source: InputSource, path: String) -> String? {
        guard let object = source.object else {
            return isObject ? "the checkpoint is an S3 object's" : fingerprint.mismatch(path: path, offset: offset)
        }
        guard let etag else { return "the checkpoint is a file's, not an S3 object's" }
        guard etag == object.etag else {
            return "its ETag is \(object.etag), not \(etag) as when it was checkpointed (the object was written again)"
        }
        return nil
    }
}

/// Checkpoints of a partition's inputs (``PartitionSet``): identified, like objects, by a
/// string and not by the bytes of a file (which may not be on the shard's machine): the content
/// identity the partition recorded, prefixed `partition `.
extension InputCheckpoint {
    /// The checkpoint of partitioned input `path`, whose content `identity` names, at its start.
    init(partitioned path: String, identity: String, offset: UInt64 = 0, line: Int = 0, completed: Bool = false) {
        self.init(
            path: path, offset: offset, line: line, completed: completed,
            fingerprint: FileFingerprint(size: 0, headLength: 0, headHash: "", windowHash: nil, windowLength: nil))
        etag = "partition " + identity
    }
}
