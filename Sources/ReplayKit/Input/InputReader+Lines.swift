import Foundation

extension InputReader {
    /// Splits `stream` into lines and hands each to `body`, after skipping `skip` decompressed
    /// bytes (gzip or stdin resume), until the stream ends or `body` returns false.
    func readLines(_ stream: ByteStream, skip: UInt64, _ body: (InputLine) throws -> Bool) throws {
        _ = try readLines(stream, skip: skip, from: LinePosition(offset: resumeAt?.offset ?? 0, line: resumeAt?.lineNumber ?? 1), body)
    }

    /// ``readLines(_:skip:_:)`` of a stream whose first byte (after `skip`) is at `position`
    /// (a zip member's, in the archive's numbering); returns where the lines ended, or nil when
    /// `body` asked to stop.
    func readLines(_ stream: ByteStream, skip: UInt64, from position: LinePosition, _ body: (InputLine) throws -> Bool) throws
        -> LinePosition?
    {
        var lines = LineBuffer(maxLineBytes: maxLineBytes, baseOffset: position.offset, lineNumber: position.line, fileSize: fileSize)
        defer { lines.deallocate() }
        guard try lines.skip(skip, in: stream) else { return position }
        while true {
            lines.stripByteOrderMark()
            guard try lines.handOverCompleteLines(stream, body) else { return nil }
            if lines.eof {
                guard try lines.handOverLastLine(stream, body) else { return nil }
                return lines.position
            }
            lines.makeRoom()
            try lines.fill(from: stream)
        }
    }
}

/// Where a stream of lines stands: the offset of its next byte and the number of its next line.
struct LinePosition: Equatable {
    var offset: UInt64
    var line: Int
}

/// The read buffer of ``InputReader/readLines(_:skip:_:)``: the bytes read and not yet handed
/// over, where the current line starts, and the prefix of an over-long line being discarded.
///
/// Memory stays bounded: a line longer than `maxLineBytes` is handed over truncated, and the
/// buffer grows only until it holds one such line.
private struct LineBuffer {
    let maxLineBytes: Int
    let fileSize: UInt64?
    private(set) var buf: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The decompressed offset of `buf[0]`.
    private var baseOffset: UInt64
    private var lineNumber: Int
    /// The current line starts at `start`; bytes up to `end` were read; `scanFrom` is where the
    /// search for the next newline resumes.
    private var start = 0, end = 0, scanFrom = 0
    /// The first `maxLineBytes` of an over-long line being discarded, and where it started.
    private var overflow: [UInt8]?
    private var overflowStart: UInt64 = 0
    /// The stream ended.
    private(set) var eof = false
    /// A UTF-8 byte order mark at the very start of the input (some Windows tools write one) is
    /// not part of the first line. Decided once the first three bytes are in, the input ended, or
    /// the bytes in cannot start a mark; until then the buffer holds at most `EF BB`, so no line
    /// can be handed over before the decision.
    private var bomUndecided: Bool

    init(maxLineBytes: Int, baseOffset: UInt64, lineNumber: Int, fileSize: UInt64?) {
        self.maxLineBytes = maxLineBytes
        self.fileSize = fileSize
        self.baseOffset = baseOffset
        self.lineNumber = lineNumber
        bomUndecided = baseOffset == 0
        // 128 KiB, so what one read brings stays in the core's L2 cache until its lines are
        // parsed (reading 1 MiB at a time, each line had left it, and finding its end paid the
        // misses: 3.7 % of a dry run); `makeRoom` doubles the buffer for a longer line.
        capacity = max(min(128 * 1024, maxLineBytes + 1), 64 * 1024)
        buf = .allocate(capacity: capacity)
    }

    func deallocate() { buf.deallocate() }

    /// Reads and drops `count` bytes. Returns false when the stream ended first.
    mutating func skip(_ count: UInt64, in stream: ByteStream) throws -> Bool {
        var left = count
        while left > 0 {
            let n = try stream.read(into: buf, count: Int(min(UInt64(capacity), left)))
            if n == 0 { return false }
            left -= UInt64(n)
        }
        return true
    }

    mutating func stripByteOrderMark() {
        guard bomUndecided, end >= 3 || eof || (end > 0 && buf[0] != 0xEF) || (end > 1 && buf[1] != 0xBB) else { return }
        bomUndecided = false
        if end >= 3, buf[0] == 0xEF, buf[1] == 0xBB, buf[2] == 0xBF {
            start = 3
            scanFrom = 3
        }
    }

    /// Hands over every complete line in the buffer. Returns false when `body` asked to stop.
    mutating func handOverCompleteLines(_ stream: ByteStream, _ body: (InputLine) throws -> Bool) throws -> Bool {
        while scanFrom < end {
            guard let hit = memchr(buf + scanFrom, 0x0A, end - scanFrom) else {
                scanFrom = end
                break
            }
            // Raw pointer distance: no memory is bound or read through `hit`.
            let nl = UnsafeRawPointer(buf).distance(to: UnsafeRawPointer(hit))
            let endOffset = baseOffset + UInt64(nl + 1)
            let keepGoing: Bool
            if let prefix = overflow {
                overflow = nil
                keepGoing = try handOver(prefix, endOffset: endOffset, stream, body)
            } else {
                keepGoing = try body(line(from: start, to: nl, endOffset: endOffset, stream))
            }
            if !keepGoing { return false }
            lineNumber += 1
            start = nl + 1
            scanFrom = start
        }
        return true
    }

    /// At the end of the stream: hands over the last line if it has no newline. Returns false
    /// when `body` asked to stop.
    mutating func handOverLastLine(_ stream: ByteStream, _ body: (InputLine) throws -> Bool) throws -> Bool {
        let endOffset = baseOffset + UInt64(end)
        var carryOn = true
        if let prefix = overflow {
            carryOn = try handOver(prefix, endOffset: endOffset, stream, body)
        } else if start < end {
            carryOn = try body(line(from: start, to: end, endOffset: endOffset, stream))
        } else {
            return true
        }
        lineNumber += 1
        (start, scanFrom) = (end, end)
        return carryOn
    }

    /// Where the stream stands: the offset after the last byte read, and the next line's number.
    var position: LinePosition { LinePosition(offset: baseOffset + UInt64(end), line: lineNumber) }

    /// Drops the bytes handed over, then grows the buffer or starts discarding an over-long line.
    mutating func makeRoom() {
        if overflow != nil {
            baseOffset += UInt64(end)
            (start, end, scanFrom) = (0, 0, 0)
        } else if start > 0 {
            let pending = end - start
            if pending > 0 { memmove(buf, buf + start, pending) }
            baseOffset += UInt64(start)
            (start, end, scanFrom) = (0, pending, pending)
        }
        if overflow == nil, end - start > maxLineBytes {
            overflow = Array(UnsafeBufferPointer(start: buf + start, count: maxLineBytes))
            overflowStart = baseOffset + UInt64(start)
            baseOffset += UInt64(end)
            (start, end, scanFrom) = (0, 0, 0)
        }
        if end == capacity {
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
            bigger.update(from: buf, count: end)
            buf.deallocate()
            buf = bigger
            capacity *= 2
        }
    }

    /// Reads more bytes after `end`, or notes the end of the stream.
    mutating func fill(from stream: ByteStream) throws {
        let n = try stream.read(into: buf + end, count: capacity - end)
        if n == 0 { eof = true } else { end += n }
    }

    /// The whole line `buf[from..<to]`; valid until the buffer changes.
    private func line(from: Int, to: Int, endOffset: UInt64, _ stream: ByteStream) -> InputLine {
        InputLine(
            bytes: UnsafeBufferPointer(start: buf + from, count: to - from), lineNumber: lineNumber,
            startOffset: baseOffset + UInt64(from), endOffset: endOffset, truncated: false,
            fileBytesRead: stream.fileBytesRead, fileSize: fileSize)
    }

    /// Hands over the kept prefix of an over-long line, marked truncated.
    private func handOver(
        _ prefix: [UInt8], endOffset: UInt64, _ stream: ByteStream, _ body: (InputLine) throws -> Bool
    ) throws -> Bool {
        try prefix.withUnsafeBufferPointer { p in
            try body(
                InputLine(
                    bytes: p, lineNumber: lineNumber, startOffset: overflowStart, endOffset: endOffset, truncated: true,
                    fileBytesRead: stream.fileBytesRead, fileSize: fileSize))
        }
    }
}
