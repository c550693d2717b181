/// An `s3://bucket/prefix-or-key` input.
///
/// Everything after the bucket's `/` is the key or prefix exactly as written: spaces, `+`, `%`,
/// `?`, `#` and any Unicode are part of the key (as with `aws s3`), nothing is decoded.
package struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// The bucket.
    package let bucket: String
    /// The key or prefix; empty for the whole bucket.
    package let path: String

    /// Whether `text` is meant as an S3 location (starts with `s3://`, any case).
    package static func isS3(_ text: String) -> Bool { text.lowercased().hasPrefix("s3://") }

    /// Parses `s3://bucket`, `s3://bucket/`, `s3://bucket/prefix/` or `s3://bucket/key`.
    package init(parsing text: String) throws(S3Error) {
        guard Self.isS3(text) else { throw Self.invalid(text, "it does not start with s3://") }
        let rest = text.dropFirst("s3://".count)
        let slash = rest.firstIndex(of: "/")
        let bucket = String(rest[..<(slash ?? rest.endIndex)])
        if let problem = Self.bucketNameProblem(bucket) { throw Self.invalid(text, problem) }
        let path = slash.map { String(rest[rest.index(after: $0)...]) } ?? ""
        if path.utf8.count > 1024 {
            throw Self.invalid(text, "the key is \(path.utf8.count) bytes long; S3 keys are at most 1024 bytes")
        }
        self.init(bucket: bucket, path: path)
    }

    /// A location from its parts (not checked).
    package init(bucket: String, path: String) {
        self.bucket = bucket
        self.path = path
    }

    /// Whether the path names a prefix for certain: empty, or ending in `/`. Otherwise it is a key,
    /// or a "folder" named without its slash (``S3Client/objects(at:)`` decides).
    package var isPrefix: Bool { path.isEmpty || path.hasSuffix("/") }

    /// `s3://bucket/path`.
    package var description: String { "s3://\(bucket)/\(path)" }

    /// Why `name` is not a valid bucket name, or nil when it is. The rules are S3's: 3 to 63
    /// characters; lower-case letters, digits, `.` and `-` (and `_`, which Google Cloud Storage and
    /// old S3 buckets allow); a letter or digit at each end; no `..`; not an IPv4 address.
    package static func bucketNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "the bucket name is missing (write s3://bucket/prefix)" }
        guard (3...63).contains(name.count) else {
            return "the bucket name \"\(name)\" has \(name.count) characters; bucket names have 3 to 63"
        }
        let allowed = name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" || $0 == "_"
        }
        guard allowed else {
            return "the bucket name \"\(name)\" may only contain lower-case letters, digits, '.', '-' and '_'"
        }
        let isAlphanumeric: (Character?) -> Bool = { $0.map { $0.isLetter || $0.isNumber } ?? false }
        guard isAlphanumeric(name.first), isAlphanumeric(name.last) else {
            return "the bucket name \"\(name)\" must begin and end with a letter or digit"
        }
        if name.contains("..") { return "the bucket name \"\(name)\" has two periods in a row" }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) {
            return "the bucket name \"\(name)\" is formatted as an IP address"
        }
        return nil
    }

    private static func invalid(_ text: String, _ reason: String) -> S3Error {
        S3Error(.invalidLocation, "\(text): not a valid S3 location: \(reason)")
    }
}
