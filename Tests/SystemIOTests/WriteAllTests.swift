import Foundation
import Synchronization
import SystemIO
import Testing

/// What the writer thread ran into, if anything.
private final class WriterFailure: Sendable {
    let error = Mutex<String?>(nil)
}

/// `writeAll(_:to:)`: every byte, in order, or an error with `errno`.
@Suite struct WriteAllTests {
    /// More than a pipe holds at once: the writer blocks until the reader drains the pipe, and
    /// the reader gets every byte in order.
    @Test func everyByteReachesThePipeInOrder() throws {
        let (readEnd, writeEnd) = try makePipe()
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let failure = WriterFailure()
        // The writer has a thread of its own, so this one can read meanwhile.
        Thread {
            do { try writeAll(bytes, to: writeEnd) } catch { failure.error.withLock { $0 = "\(error)" } }
            close(writeEnd)
        }.start()
        let got = [UInt8](FileHandle(fileDescriptor: readEnd, closeOnDealloc: true).readDataToEndOfFile())
        #expect(failure.error.withLock { $0 } == nil)
        #expect(got.count == bytes.count)
        #expect(got == bytes)
    }

    @Test func aFailedWriteThrowsItsErrno() throws {
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let error = try #require(throws: WriteError.self) { try writeAll(Array("x".utf8), to: fd) }
        #expect(error == WriteError(code: EBADF, written: 0))
        #expect(error.description == String(cString: strerror(EBADF)))
    }

    @Test func nothingToWriteIsNoCall() throws {
        try writeAll([], to: -1)  // an invalid descriptor is never used
    }

    /// A pipe whose ends a child process started later by another test does not inherit
    /// (which would keep the write end open, and the reader waiting).
    func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        // Safe: `ends` has room for the two descriptors pipe(2) stores, and is alive during the call.
        let status = ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) }
        try #require(status == 0)
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }
}
