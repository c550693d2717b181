import Dispatch

/// A run of consecutive lines of one input, copied out of the reader so a worker thread can
/// prepare them (``LinePreparer``) while the reader goes on.
///
/// `@unchecked Sendable` is safe because a chunk is only ever used by one thread at a time, with
/// the hand-offs ordered by Dispatch and a semaphore: the walker fills it, `DispatchQueue.async`
/// hands it to one worker, the worker signals `done` when it has written `prepared`, and the
/// walker reads the results only after waiting on `done`.
final class LineChunk: @unchecked Sendable {
    /// Where one line sits in ``bytes`` and in its input.
    struct Line {
        var range: Range<Int>
        var lineNumber: Int
        var startOffset: UInt64
        var endOffset: UInt64
        var truncated: Bool
        var fileBytesRead: UInt64
        var fileSize: UInt64?
    }

    /// Lines per chunk, and the bytes after which a chunk is handed over early.
    static let maxLines = 512
    static let maxBytes = 256 << 10

    let preparer: LinePreparer
    private(set) var bytes: [UInt8] = []
    private(set) var lines: [Line] = []
    private var prepared: [PreparedLine] = []
    private let done = DispatchSemaphore(value: 0)

    init(preparer: LinePreparer) {
        self.preparer = preparer
        bytes.reserveCapacity(Self.maxBytes + 4096)
        lines.reserveCapacity(Self.maxLines)
        prepared.reserveCapacity(Self.maxLines)
    }

    var isEmpty: Bool { lines.isEmpty }
    var isFull: Bool { lines.count >= Self.maxLines || bytes.count >= Self.maxBytes }

    /// Empties the chunk for reuse (its storage is kept).
    func reset() {
        bytes.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
        prepared.removeAll(keepingCapacity: true)
        prepared.reserveCapacity(Self.maxLines)
    }

    /// Copies `line` in.
    func append(_ line: InputLine) {
        let start = bytes.count
        bytes.append(contentsOf: line.bytes)
        lines.append(
            Line(
                range: start..<bytes.count, lineNumber: line.lineNumber, startOffset: line.startOffset,
                endOffset: line.endOffset, truncated: line.truncated, fileBytesRead: line.fileBytesRead,
                fileSize: line.fileSize))
    }

    /// Prepares every line on `queue`; ``waitUntilPrepared()`` waits for it.
    func prepareInBackground(on queue: DispatchQueue) {
        queue.async { [self] in
            prepareAll()
            done.signal()
        }
    }

    /// Waits until the background preparation started by ``prepareInBackground(on:)`` is over.
    func waitUntilPrepared() { done.wait() }

    /// Moves the prepared lines out, last line first (so `popLast()` yields them in order
    /// without copying).
    func takePreparedReversed() -> [PreparedLine] {
        var out: [PreparedLine] = []
        swap(&out, &prepared)
        out.reverse()
        return out
    }

    private func prepareAll() {
        bytes.withUnsafeBufferPointer { buf in
            for line in lines {
                prepared.append(
                    preparer.prepare(UnsafeBufferPointer(rebasing: buf[line.range]), lineNumber: line.lineNumber, inOrder: nil))
            }
        }
    }
}
