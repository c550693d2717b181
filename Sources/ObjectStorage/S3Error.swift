/// An S3 operation failed for good. Its ``kind`` says what the caller can do about it; its
/// message names the bucket (and key), and for a refusal the credential source, never a secret.
///
/// Suggested exit statuses for mr-replay: ``Kind/accessDenied`` and ``Kind/credentials`` 3,
/// ``Kind/noSuchBucket``, ``Kind/noSuchKey``, ``Kind/invalidLocation`` and ``Kind/rejected`` 2,
/// ``Kind/retriesExhausted`` 75; ``Kind/objectChanged`` follows `inputs.on_changed`.
package struct S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    package enum Kind: Sendable, Equatable {
        /// 401 or 403, or the store refused the credentials.
        case accessDenied
        /// No credentials could be found or obtained.
        case credentials
        /// The bucket does not exist.
        case noSuchBucket
        /// The key does not exist (or, for a HEAD, the bucket or the key).
        case noSuchKey
        /// The object is no longer the version whose ETag was pinned (412).
        case objectChanged
        /// Failures a retry could fix went on past the retry limit.
        case retriesExhausted
        /// A refusal a retry cannot fix (400, 405, 416, a redirect to another region), or an
        /// answer that makes no sense (a Range ignored, a body shorter than announced).
        case rejected
        /// An `s3://` location or a setting is not valid.
        case invalidLocation
    }

    /// What kind of failure.
    package var kind: Kind
    /// The whole message, for people.
    package var message: String
    /// The bucket concerned, if any.
    package var bucket: String?
    /// The key concerned, if any.
    package var key: String?
    /// The last HTTP status, if there was an answer.
    package var status: Int?
    /// The S3 error code of the last answer (`AccessDenied`, `NoSuchKey`…), if any.
    package var code: String?

    /// An error; `message` must not contain a secret.
    package init(
        _ kind: Kind, _ message: String, bucket: String? = nil, key: String? = nil, status: Int? = nil,
        code: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.bucket = bucket
        self.key = key
        self.status = status
        self.code = code
    }

    /// The message.
    package var description: String { message }
}
