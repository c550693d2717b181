/// One input of a replay: a file (plain or gzip), standard input, or an S3 object.
public struct InputSource: Sendable, Equatable, Hashable {
    /// How the input's content is laid out.
    public enum Kind: String, Sendable, Equatable, Hashable {
        /// One JSON event per line (NDJSON / JSON Lines), possibly gzip-compressed.
        case ndjson
        /// A MetaRouter SDK offline snapshot: `{"version":1,"events":[...]}` (`queue.v1.json`,
        /// `overflow.v1.json`).
        case snapshot
        /// SimpleAnalytics payloads, `{"items":[...],"counters":[...]}`, one per line (what
        /// mr-collector's `/simpleanalytics` endpoint stores), possibly gzip-compressed; each
        /// payload becomes its events (``SimpleAnalyticsInput``).
        case simpleAnalytics
        /// One SimpleAnalytics payload as the whole file (a JSON document, pretty-printed or not).
        case simpleAnalyticsDocument
    }

    /// The file path, `-` for standard input, or `s3://bucket/key` for an S3 object.
    public let path: String
    /// The content layout.
    public let kind: Kind
    /// For an S3 object: the object and the store it is read from.
    package let object: S3InputObject?
    /// For an S3 object: its key relative to the `s3://` argument it came from (see ``shardName``).
    package let relativeName: String?

    /// Creates a source.
    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
        object = nil
        relativeName = nil
    }

    /// The source of an S3 object, named by its `s3://` URL.
    init(object: S3InputObject, kind: Kind, relativeName: String) {
        path = object.url
        self.kind = kind
        self.object = object
        self.relativeName = relativeName
    }

    /// Whether this source is standard input.
    public var isStdin: Bool { path == "-" }

    /// Whether this source is an S3 object.
    public var isObject: Bool { object != nil }

    /// The input's path relative to the argument it came from, which `--shard-by file` hashes:
    /// a file's name (a directory's inputs are the files directly in it, and a pattern's or a
    /// file argument's are named by their last component), so the same file goes to the same
    /// shard wherever its directory is mounted. An S3 object's is its key after the prefix it
    /// was listed under (`source-a/2024-05-01/part-1.gz` for `s3://bucket/segment-logs/` or
    /// `s3://bucket/segment-logs`), or its last component when it was named by its key.
    public var shardName: String {
        if let relativeName { return relativeName }
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The same input read as `kind`.
    func with(kind: Kind) -> InputSource {
        guard let object else { return InputSource(path: path, kind: kind) }
        return InputSource(object: object, kind: kind, relativeName: relativeName ?? "")
    }

    /// The same S3 input with `object` (its recognized content, or its head dropped).
    func with(object: S3InputObject) -> InputSource {
        InputSource(object: object, kind: kind, relativeName: relativeName ?? "")
    }
}

/// Where to resume reading an input: the byte offset in the decompressed stream of the next
/// line to read, and that line's 1-based number.
package struct ResumePoint: Sendable, Equatable, Codable {
    /// Byte offset (decompressed) where the next line starts.
    package var offset: UInt64
    /// The 1-based number of the line that starts at `offset`.
    package var lineNumber: Int
    /// For a snapshot: whether the bytes after its break were already dead-lettered and the
    /// file has not changed since, so they are not handed over again. Set by the run's resume
    /// plan; not part of the coded form.
    var damagedTailSettled = false

    enum CodingKeys: String, CodingKey { case offset, lineNumber }

    /// Creates a resume point.
    package init(offset: UInt64, lineNumber: Int) {
        self.offset = offset
        self.lineNumber = lineNumber
    }
}

/// One line (or one snapshot event) handed to ``InputReader/forEachLine(_:)``.
///
/// `bytes` is only valid during the call; copy it to keep it.
package struct InputLine {
    /// The line's bytes without the trailing `\n` (a trailing `\r` is kept; JSON treats it as whitespace).
    package let bytes: UnsafeBufferPointer<UInt8>
    /// 1-based line number (for snapshots: event index + 1).
    package let lineNumber: Int
    /// Byte offset (decompressed) where the line starts.
    package let startOffset: UInt64
    /// Byte offset (decompressed) just after the line's newline.
    package let endOffset: UInt64
    /// Whether the line was longer than the reader's `maxLineBytes`; `bytes` then holds only its start.
    package let truncated: Bool
    /// Bytes consumed from the file so far (compressed bytes for gzip files), for progress.
    package let fileBytesRead: UInt64
    /// The file's size on disk, when known (nil for stdin), for progress.
    package let fileSize: UInt64?
    /// For the rest of a damaged snapshot (from its break to the end of the file): why it
    /// could not be read. Such a line is dead-lettered whole, never parsed.
    var damage: String? = nil
    /// A line refused before it reached the enricher (a SimpleAnalytics payload that is not
    /// valid): dead-lettered whole with this reason and detail.
    var refusal: (reason: String, detail: String)? = nil
    /// False for all but the last event made from one input line (a SimpleAnalytics payload's
    /// entries, a vendor's record of several events): the line is settled, and a checkpoint
    /// passes it, only with its last event.
    var endsLine = true
    /// A record settled by a rule without an event (``RecordConverter``: a vendor's record that
    /// is no event, or events a transform dropped).
    var skip: SkipReason? = nil
    /// In a zip archive: the member the line is in, which its dead letters name.
    var member: String? = nil
}
