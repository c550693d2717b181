import FileDescriptorIO
import Foundation

/// Appends the run's problem batches to `<state_dir>/batches.ndjson` as they end, and keeps the
/// first ``reportCap`` of them (and the counts of all) for the report.
///
/// A clean run writes nothing: the file is created with the first problem. Each record is one
/// `write(2)` of a whole line in append mode, so a process killed at any point leaves a journal
/// of whole lines; a line cut short by a full disk is cut away when the next run opens the file.
/// The journal keeps the batches of every run, each record naming its run.
package struct BatchJournal: ~Copyable {
    /// How many problem batches the report lists; the rest are counted.
    package static let reportCap = 100

    /// The journal file (nil: the problems are kept for the report only).
    package let path: String?
    /// The first problems of this run.
    package private(set) var kept: [BatchProblem] = []
    /// Problems of this run beyond ``kept``.
    package private(set) var omitted = 0
    /// Counts over every problem of this run.
    package private(set) var tally = ProblemTally()
    /// Why the journal could not be written, if it could not (the run goes on; the report says so).
    package private(set) var failure: String?
    private var fd: Int32 = -1

    /// A journal at `path`; nothing is opened until the first problem.
    package init(path: String?) { self.path = path }

    deinit { if fd >= 0 { Foundation.close(fd) } }

    /// Records `problem`: appended to the file, kept or counted for the report.
    package mutating func append(_ problem: BatchProblem) {
        tally.add(problem)
        if kept.count < Self.reportCap { kept.append(problem) } else { omitted += 1 }
        guard failure == nil, let path else { return }
        do {
            if fd < 0 { fd = try Self.open(path) }
            var line = try Self.encoder.encode(problem)
            line.append(0x0A)
            // Safe: the pointer is the line's own storage, alive and unchanged for the closure's
            // duration, and `writeAll` uses it only during the call.
            try line.withUnsafeBytes { try writeAll($0, to: fd) }
        } catch {
            failure = "cannot write the batch journal \(path): \(error)"
        }
    }

    private static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    /// Opens `path` for appending, cutting away a last line that a full disk left unfinished.
    static func open(_ path: String) throws -> Int32 {
        let fd = Foundation.open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let size = lseek(fd, 0, SEEK_END)
        if size > 0 {
            let keep = try lastLineEnd(fd, size: size)
            if keep < size, ftruncate(fd, keep) != 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        return fd
    }

    /// The offset after the last newline of the file (0 when it has none).
    static func lastLineEnd(_ fd: Int32, size: off_t) throws -> off_t {
        var end = size
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while end > 0 {
            let start = max(0, end - off_t(buffer.count))
            let count = Int(end - start)
            // Safe: `count` is at most `buffer.count`, so pread writes only into the buffer, which
            // is alive for the closure's duration.
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, start) }
            guard n == count else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            if let i = buffer[0..<count].lastIndex(of: 0x0A) { return start + off_t(i) + 1 }
            end = start
        }
        return 0
    }
}
