import Foundation

/// Streams the lines of one input with constant memory.
///
/// Gzip input is recognised by its magic bytes (not its name) and decompressed on the fly.
/// Offsets are in the decompressed stream; `endOffset` is after the newline. Lines longer than
/// `maxLineBytes` are handed over truncated (`truncated == true`) so memory stays bounded.
/// Snapshot sources (``InputSource/Kind/snapshot``) yield one line per event.
public final class InputReader {
    /// The input being read.
    public let source: InputSource
    /// Where reading starts.
    public let resumeAt: ResumePoint?
    /// Longest line kept whole.
    public let maxLineBytes: Int
    /// Whether the content turned out to be gzip-compressed (known after the first read).
    public private(set) var isGzip = false
    /// The file's size on disk (nil for stdin).
    public let fileSize: UInt64?

    private let raw: FileDescriptorStream

    /// Opens `source`; reading starts at `resumeAt` (offset and line number) when given.
    /// `stdinDescriptor` is the descriptor read for `-` (tests pass a pipe).
    public init(
        source: InputSource, resumeAt: ResumePoint? = nil, maxLineBytes: Int = 16 << 20, stdinDescriptor: Int32 = 0
    ) throws {
        self.source = source
        self.resumeAt = resumeAt
        self.maxLineBytes = max(1, maxLineBytes)
        if source.isStdin {
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
    public func forEachLine(_ body: (InputLine) throws -> Bool) throws {
        let stream = try openStream()
        if source.kind == .snapshot {
            try SnapshotInput.read(stream: stream, reader: self, body)
            return
        }
        try readLines(stream, skip: pendingSkip, body)
    }

    /// Decompressed bytes still to skip before the resume point (gzip or stdin).
    private var pendingSkip: UInt64 = 0

    /// The content as a stream (decompressed), positioned at the resume point for a plain file.
    func openStream() throws -> ByteStream {
        let head = try raw.sniff(2)
        isGzip = head == [0x1F, 0x8B]
        raw.pushBack(head)
        var skip: UInt64 = resumeAt?.offset ?? 0
        if !isGzip, !source.isStdin, source.kind == .ndjson, skip > 0 {
            // Plain file: seek straight to the resume point.
            if lseek(raw.fd, off_t(skip), SEEK_SET) >= 0 {
                raw.discardPushedBack()
                skip = 0
            }
        }
        pendingSkip = skip
        return isGzip ? try GunzipStream(source: raw, path: source.path) : raw
    }

    private func readLines(_ stream: ByteStream, skip: UInt64, _ body: (InputLine) throws -> Bool) throws {
        let startOffset = resumeAt?.offset ?? 0
        var lineNumber = resumeAt?.lineNumber ?? 1
        var capacity = min(1 << 20, maxLineBytes + 1)
        capacity = max(capacity, 64 * 1024)
        var buf = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buf.deallocate() }

        // Skip decompressed bytes up to the resume point (gzip or stdin).
        var toSkip = skip
        while toSkip > 0 {
            let n = try stream.read(into: buf, count: Int(min(UInt64(capacity), toSkip)))
            if n == 0 { return }
            toSkip -= UInt64(n)
        }

        var baseOffset = startOffset  // decompressed offset of buf[0]
        var start = 0, end = 0, scanFrom = 0
        var overflow: [UInt8]? = nil  // prefix of an over-long line being discarded
        var overflowStart: UInt64 = 0
        var eof = false
        // A UTF-8 byte order mark at the very start of the input (some Windows tools write one)
        // is not part of the first line. Decided once the first three bytes are in, the input
        // ended, or the bytes in cannot start a mark; until then the buffer holds at most `EF BB`,
        // so no line can be handed over before the decision.
        var bomUndecided = startOffset == 0
        while true {
            if bomUndecided, end >= 3 || eof || (end > 0 && buf[0] != 0xEF) || (end > 1 && buf[1] != 0xBB) {
                bomUndecided = false
                if end >= 3, buf[0] == 0xEF, buf[1] == 0xBB, buf[2] == 0xBF {
                    start = 3
                    scanFrom = 3
                }
            }
            // Hand over every complete line in the buffer.
            while scanFrom < end {
                let hit = memchr(buf + scanFrom, 0x0A, end - scanFrom)
                guard let hit else {
                    scanFrom = end
                    break
                }
                let nl = buf.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if let prefix = overflow {
                    overflow = nil
                    let keepGoing = try prefix.withUnsafeBufferPointer { p in
                        try body(InputLine(
                            bytes: p, lineNumber: lineNumber, startOffset: overflowStart,
                            endOffset: baseOffset + UInt64(nl + 1), truncated: true,
                            fileBytesRead: stream.fileBytesRead, fileSize: fileSize))
                    }
                    if !keepGoing { return }
                } else {
                    let line = InputLine(
                        bytes: UnsafeBufferPointer(start: buf + start, count: nl - start), lineNumber: lineNumber,
                        startOffset: baseOffset + UInt64(start), endOffset: baseOffset + UInt64(nl + 1),
                        truncated: false, fileBytesRead: stream.fileBytesRead, fileSize: fileSize)
                    if try !body(line) { return }
                }
                lineNumber += 1
                start = nl + 1
                scanFrom = start
            }
            if eof {
                if let prefix = overflow {
                    _ = try prefix.withUnsafeBufferPointer { p in
                        try body(InputLine(
                            bytes: p, lineNumber: lineNumber, startOffset: overflowStart,
                            endOffset: baseOffset + UInt64(end), truncated: true,
                            fileBytesRead: stream.fileBytesRead, fileSize: fileSize))
                    }
                } else if start < end {
                    _ = try body(InputLine(
                        bytes: UnsafeBufferPointer(start: buf + start, count: end - start), lineNumber: lineNumber,
                        startOffset: baseOffset + UInt64(start), endOffset: baseOffset + UInt64(end),
                        truncated: false, fileBytesRead: stream.fileBytesRead, fileSize: fileSize))
                }
                return
            }
            // Make room: drop consumed bytes, then grow or start discarding an over-long line.
            if overflow != nil {
                baseOffset += UInt64(end)
                start = 0; end = 0; scanFrom = 0
            } else if start > 0 {
                let pending = end - start
                if pending > 0 { memmove(buf, buf + start, pending) }
                baseOffset += UInt64(start)
                start = 0; end = pending; scanFrom = pending
            }
            if overflow == nil, end - start > maxLineBytes {
                overflow = Array(UnsafeBufferPointer(start: buf + start, count: maxLineBytes))
                overflowStart = baseOffset + UInt64(start)
                baseOffset += UInt64(end)
                start = 0; end = 0; scanFrom = 0
            }
            if end == capacity {
                let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                bigger.update(from: buf, count: end)
                buf.deallocate()
                buf = bigger
                capacity *= 2
            }
            let n = try stream.read(into: buf + end, count: capacity - end)
            if n == 0 { eof = true } else { end += n }
        }
    }
}
