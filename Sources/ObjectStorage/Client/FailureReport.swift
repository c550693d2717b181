/// Turns the last failed attempt into the ``S3Error`` a person reads: what was being done, on
/// which bucket and key, what the store said, what to check, and for refusals the credential
/// source (never a secret).
struct FailureReport: Sendable {
    /// What was being done, e.g. `listing s3://bucket/prefix`.
    var action: String
    /// The bucket.
    var bucket: String
    /// The key, for object operations.
    var key: String?
    /// Where the credentials came from.
    var credentialSource: String
    /// The pinned ETag, for a changed object's message.
    var etag: String?

    /// The error for `kind` after `last`, the last of `attempts` attempts.
    func error(_ kind: S3Error.Kind, last: AttemptFailure, attempts: Int) -> S3Error {
        let said = last.summary
        let message: String
        switch kind {
        case .accessDenied:
            message =
                "\(action): access denied (\(said)); the credentials come from \(credentialSource): check that they are valid and may read bucket \"\(bucket)\""
        case .noSuchBucket:
            message = "\(action): bucket \"\(bucket)\" does not exist (\(said))"
        case .noSuchKey:
            let what = key.map { "s3://\(bucket)/\($0)" } ?? "bucket \"\(bucket)\""
            message = "\(action): \(what) does not exist (\(said))"
        case .objectChanged:
            message = "\(action): the object changed while it was being read: its ETag is no longer \(etag ?? "the one first seen") (\(said))"
        case .retriesExhausted:
            message = "\(action): gave up after \(attempts) attempts; the last: \(said)"
        case .rejected, .invalidLocation, .credentials:
            var text = "\(action): the store refused the request (\(said))"
            if let region = last.body.region { text += "; the bucket is in region \(region): set the region to it" }
            message = text
        }
        return S3Error(kind, message, bucket: bucket, key: key, status: last.status, code: last.body.code)
    }
}
