import Foundation

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

    /// Opens `source`; reading starts at `resumeAt` (offset and line number) when given.
    /// `stdinDescriptor` is the descriptor read for `-` (tests pass a pipe).
    package init(
        source: InputSource, resumeAt: ResumePoint? = nil, maxLineBytes: Int = 16 << 20, stdinDescriptor: Int32 = 0
    ) throws {
        self.source = source
        self.resumeAt = resumeAt
        self.maxLineBytes = max(1, maxLineBytes)
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

    /// Calls `body` for each line in order until the input ends or `body` returns false.
    package func forEachLine(_ body: (InputLine) throws -> Bool) throws {
        let stream = try openStream()
        switch source.kind {
        case .ndjson: break
        case .snapshot:
            try SnapshotInput.read(stream: stream, reader: self, body)
            return
        case .simpleAnalytics, .simpleAnalyticsDocument:
            try SimpleAnalyticsInput.read(stream: stream, reader: self, skip: pendingSkip, body)
            return
        }
        try readLines(stream, skip: pendingSkip, body)
    }

    /// Decompressed bytes still to skip before the resume point (gzip or stdin).
    private var pendingSkip: UInt64 = 0

    /// The content as a stream (decompressed), positioned at the resume point for a plain file.
    func openStream() throws -> ByteStream {
        guard let raw else { return try openObjectStream(source.object!) }
        let head = try raw.sniff(2)
        isGzip = head == [0x1F, 0x8B]
        raw.pushBack(head)
        var skip: UInt64 = resumeAt?.offset ?? 0
        if !isGzip, !source.isStdin, source.kind == .ndjson || source.kind == .simpleAnalytics, skip > 0 {
            // Plain file: seek straight to the resume point.
            if lseek(raw.fd, off_t(skip), SEEK_SET) >= 0 {
                raw.discardPushedBack()
                skip = 0
            }
        }
        pendingSkip = skip
        return isGzip ? try GunzipStream(source: raw, path: source.path) : raw
    }

    /// An S3 object as a stream (decompressed), positioned at the resume point. Whether it is
    /// gzip was seen when it was recognized (its first bytes); a plain object resumes with a
    /// `Range` request at the offset, a gzip one is read from its start and skipped to it.
    private func openObjectStream(_ object: S3InputObject) throws -> ByteStream {
        isGzip = object.isGzip
        var skip: UInt64 = resumeAt?.offset ?? 0
        var start: UInt64 = 0
        if !isGzip, source.kind == .ndjson || source.kind == .simpleAnalytics, skip > 0 {
            start = skip
            skip = 0
        }
        pendingSkip = skip
        let stream = S3InputStream(object: object, offset: start)
        return isGzip ? try GunzipStream(source: stream, path: source.path) : stream
    }
}
