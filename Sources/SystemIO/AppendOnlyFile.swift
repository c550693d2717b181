#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file that only grows at its end, one whole record per ``append(_:)``: the package's one way
/// of appending to a log. The dead-letter file, the batch journal, the acknowledgment log, the
/// collector's NDJSON store and the dry run's output are each one.
///
/// Each append is one ``writeAll(_:to:)`` in append mode, so a process killed at any point
/// leaves whole records behind it, except one cut short by a full disk (``Start/cutPartialLine``
/// cuts that away when the file is opened again). Not thread-safe: one owner at a time.
package final class AppendOnlyFile {
    /// Where appending starts.
    package enum Start: Sendable {
        /// After what the file holds (created when missing).
        case keep
        /// After the file's last newline: a last line that a full disk left unfinished is cut.
        case cutPartialLine
        /// At 0: what the file held is removed.
        case empty
    }

    /// Why a file could not be opened, written or closed: the path, what was done, and the
    /// system's text (`cannot open /x/y: Permission denied`).
    package struct Failure: Error, CustomStringConvertible, Sendable, Equatable {
        /// The file (or the descriptor's name).
        package let path: String
        /// What failed: `open`, `write`, `sync` or `close`.
        package let operation: String
        /// The `errno` of the failed call.
        package let code: Int32

        /// A failure of `operation` on `path` with `errno` `code`.
        package init(path: String, operation: String, code: Int32) {
            self.path = path
            self.operation = operation
            self.code = code
        }

        package var description: String { "cannot \(operation) \(path): \(String(cString: strerror(code)))" }
    }

    /// The file's path (or the descriptor's name).
    package let path: String
    /// The file descriptor; -1 once closed.
    package private(set) var descriptor: Int32
    /// Bytes in the file: what it held when opened, plus what was appended since.
    package private(set) var size: UInt64
    /// Whether ``close()`` closes the descriptor (false for one the caller lent).
    private let owned: Bool

    /// Opens `path` for appending (creating it, and its directory when `createDirectory`).
    /// - Throws: ``Failure``.
    package init(path: String, start: Start = .keep, createDirectory: Bool = false) throws(Failure) {
        if createDirectory { try Self.makeDirectory(of: path) }
        let flags = O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | (start == .empty ? O_TRUNC : 0)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw Failure(path: path, operation: "open", code: errno) }
        var end = lseek(fd, 0, SEEK_END)
        if start == .cutPartialLine, end > 0 {
            let keep = Self.lastLineEnd(fd, size: end)
            guard keep >= 0, keep == end || ftruncate(fd, keep) == 0 else {
                let code = errno
                _ = Self.closeDescriptor(fd)
                throw Failure(path: path, operation: "open", code: code)
            }
            end = keep
        }
        self.path = path
        descriptor = fd
        size = UInt64(max(end, 0))
        owned = true
    }

    /// Appends to a descriptor the caller opened and keeps (standard output, say); `name` is
    /// what errors call it. ``close()`` leaves it open.
    package init(descriptor: Int32, name: String) {
        path = name
        self.descriptor = descriptor
        size = 0
        owned = false
    }

    deinit { if owned, descriptor >= 0 { _ = Self.closeDescriptor(descriptor) } }

    /// Appends `bytes` whole (one ``writeAll(_:to:)``).
    /// - Throws: ``Failure`` when the file is closed or the write fails (some of the bytes may
    ///   have been written).
    package func append(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        guard descriptor >= 0 else { throw Failure(path: path, operation: "write", code: EBADF) }
        do {
            try writeAll(bytes, to: descriptor)
        } catch let error as WriteError {
            size += UInt64(error.written)
            throw Failure(path: path, operation: "write", code: error.code)
        } catch {
            throw Failure(path: path, operation: "write", code: EIO)
        }
        size += UInt64(bytes.count)
    }

    /// ``append(_:)`` for the bytes of an array.
    package func append(_ bytes: [UInt8]) throws(Failure) {
        // Safe: the pointer is the array's own storage, alive and unchanged for the closure's
        // duration, and `append` uses it only during the call.
        let appended = bytes.withUnsafeBytes { raw in Result { () throws(Failure) in try append(raw) } }
        try appended.get()
    }

    /// Asks the system to put what was appended on the disk (`fsync`).
    package func sync() throws(Failure) {
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            throw Failure(path: path, operation: "sync", code: descriptor >= 0 ? errno : EBADF)
        }
    }

    /// Closes the file (a lent descriptor stays open); later appends throw. Does nothing the
    /// second time.
    package func close() throws(Failure) {
        guard descriptor >= 0 else { return }
        let fd = descriptor
        descriptor = -1
        guard owned else { return }
        if Self.closeDescriptor(fd) != 0 { throw Failure(path: path, operation: "close", code: errno) }
    }

    private static func closeDescriptor(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.close(fd)
        #else
            Darwin.close(fd)
        #endif
    }

    /// Creates the directory that holds `path`, and its parents.
    private static func makeDirectory(of path: String) throws(Failure) {
        let bytes = Array(path.utf8)
        guard let last = bytes.lastIndex(of: UInt8(ascii: "/")), last > 0 else { return }
        for end in 1...last where bytes[end] == UInt8(ascii: "/") {
            let directory = String(decoding: bytes[..<end], as: UTF8.self)
            if mkdir(directory, 0o755) != 0, errno != EEXIST {
                throw Failure(path: directory, operation: "create the directory", code: errno)
            }
        }
    }

    /// The offset after the last newline of the file (0 when it has none); -1 when it cannot be read.
    static func lastLineEnd(_ fd: Int32, size: off_t) -> off_t {
        var end = size
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while end > 0 {
            let start = max(0, end - off_t(buffer.count))
            let count = Int(end - start)
            // Safe: `count` is at most `buffer.count`, so pread writes only into the buffer, which
            // is alive for the closure's duration.
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, start) }
            guard n == count else { return -1 }
            if let i = buffer[0..<count].lastIndex(of: 0x0A) { return start + off_t(i) + 1 }
            end = start
        }
        return 0
    }
}
