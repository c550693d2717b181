import Foundation
import ReplayConfiguration

/// Streams the lines of one input with constant memory.
///
/// Gzip input is recognised by its magic bytes (not its name) and decompressed on the fly.
/// Offsets are in the decompressed stream; `endOffset` is after the newline. Lines longer than
/// `maxLineBytes` are handed over truncated (`truncated == true`) so memory stays bounded.
/// Snapshot sources (``InputSource/Kind/snapshot``) yield one line per event.
package final class InputReader {
    /// The input being read.
    package let source: InputSource
    /// Where reading starts.
    package let resumeAt: ResumePoint?
    /// Longest line kept whole.
    package let maxLineBytes: Int
    /// Whether the content turned out to be gzip-compressed (known after the first read).
    package private(set) var isGzip = false
    /// The file's size on disk, or the S3 object's (nil for stdin).
    package let fileSize: UInt64?

    /// The file or stdin; nil for an S3 object (``openObjectStream(_:)``).
    private let raw: FileDescriptorStream?

    /// `inputs.format` and `inputs.csv`: how the content is cut into records.
    let shaping: ReplayConfig.InputShaping
    /// Whether the content turned out to be a zip archive (its members are read in order).
    private(set) var isZip = false
    /// A plain input's shape, seen at its start before it was positioned at the resume point.
    private(set) var contentShape: RecordShape?

    /// Opens `source`; reading starts at `resumeAt` (offset and line number) when given.
    /// `stdinDescriptor` is the descriptor read for `-` (tests pass a pipe).
    package init(
        source: InputSource, resumeAt: ResumePoint? = nil, maxLineBytes: Int = 16 << 20, stdinDescriptor: Int32 = 0,
        shaping: ReplayConfig.InputShaping = .init()
    ) throws {
        self.source = source
        self.resumeAt = resumeAt
        self.maxLineBytes = max(1, maxLineBytes)
        self.shaping = shaping
        if let object = source.object {
            raw = nil
            fileSize = object.size
        } else if source.isStdin {
            raw = FileDescriptorStream(fd: stdinDescriptor, ownsDescriptor: false, path: "-")
            fileSize = nil
        } else {
            let fd = open(source.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw InputError("\(source.path): cannot open: \(String(cString: strerror(errno)))")
            }
            var st = stat()
            fileSize = fstat(fd, &st) == 0 ? UInt64(st.st_size) : nil
            raw = FileDescriptorStream(fd: fd, ownsDescriptor: true, path: source.path)
        }
    }

    /// Calls `body` for each line in order until the input ends or `body` returns false. With a
    /// `converter`, each record is first turned into its events (``RecordConverter``).
    package func forEachLine(_ body: (InputLine) throws -> Bool) throws {
        try forEachLine(converter: nil, body)
    }

    /// ``forEachLine(_:)`` through `converter` (nil: records as they are).
    func forEachLine(converter: RecordConverter?, _ body: (InputLine) throws -> Bool) throws {
        let stream = try openStream()
        // Transforms apply to every kind's events (a recipe's inputs are always records).
        func handOver(_ line: InputLine) throws -> Bool {
            guard let converter else { return try body(line) }
            return try converter.convert(line, body)
        }
        switch source.kind {
        case .ndjson: try readRecords(stream, handOver)
        case .snapshot: try SnapshotInput.read(stream: stream, reader: self, handOver)
        case .simpleAnalytics, .simpleAnalyticsDocument: try SimpleAnalyticsInput.read(stream: stream, reader: self, skip: pendingSkip, handOver)
        }
    }

    /// Decompressed bytes still to skip before the resume point (gzip or stdin).
    private(set) var pendingSkip: UInt64 = 0

    /// The content as a stream (decompressed), positioned at the resume point for a plain file.
    /// gzip, zstd and zip are recognized by their first bytes; a zip archive's stream is its raw
    /// bytes (its members are read by ``readRecords(_:_:)``).
    func openStream() throws -> ByteStream {
        guard let raw else { return try openObjectStream(source.object!) }
        let head = try raw.sniff(Self.sniffBytes)
        let compression = Compression(head)
        (isGzip, isZip) = (compression == .gzip, compression == .zip)
        raw.pushBack(head)
        if compression == nil { contentShape = shape(plainHead: head) }
        var skip: UInt64 = resumeAt?.offset ?? 0
        if compression == nil, !source.isStdin, source.kind == .ndjson || source.kind == .simpleAnalytics, skip > 0,
            Self.seeksToResume(plainHead: head, shape: contentShape!)
        {
            // Plain file: seek straight to the resume point.
            if lseek(raw.fd, off_t(skip), SEEK_SET) >= 0 {
                raw.discardPushedBack()
                skip = 0
            }
        }
        pendingSkip = skip
        return try compression.map { try $0.decompressing(raw, path: source.path) } ?? raw
    }

    /// An S3 object as a stream (decompressed), positioned at the resume point. Whether it is
    /// gzip was seen when it was recognized (its first bytes); a plain object resumes with a
    /// `Range` request at the offset, a gzip one is read from its start and skipped to it.
    private func openObjectStream(_ object: S3InputObject) throws -> ByteStream {
        let head = object.firstBytes
        let compression = object.isGzip ? .gzip : Compression(head)
        (isGzip, isZip) = (compression == .gzip, compression == .zip)
        if compression == nil, !head.isEmpty { contentShape = shape(plainHead: head) }
        var skip: UInt64 = resumeAt?.offset ?? 0
        var start: UInt64 = 0
        if compression == nil, source.kind == .ndjson || source.kind == .simpleAnalytics, skip > 0, let contentShape,
            Self.seeksToResume(plainHead: head, shape: contentShape)
        {
            start = skip
            skip = 0
        }
        pendingSkip = skip
        let stream = S3InputStream(object: object, offset: start)
        return try compression.map { try $0.decompressing(stream, path: source.path) } ?? stream
    }

    /// How many first bytes are read to recognize the content.
    static let sniffBytes = 512
}
