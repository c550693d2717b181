#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `write(2)` failed before every byte was written.
package struct WriteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The failed call's `errno` (`EIO` when `write` wrote nothing and reported no error).
    package let code: Int32
    /// How many bytes had been written before the failure.
    package let written: Int

    /// A failure with `errno` `code` after `written` bytes.
    package init(code: Int32, written: Int) {
        self.code = code
        self.written = written
    }

    /// The system's text for ``code``, e.g. `No space left on device`.
    package var description: String { String(cString: strerror(code)) }
}

/// Writes every byte of `bytes` to `fd`: `write(2)` is called again after a short write (with
/// the rest) and after `EINTR` (with the same bytes). The package's one such loop.
///
/// Throws ``WriteError`` on any other failure, or when `write` writes nothing without an error
/// (which would otherwise loop for ever); the bytes before the failure may have been written.
/// The caller names the file in its own error.
package func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) throws {
    var offset = 0
    while offset < bytes.count {
        // Safe: `offset < bytes.count`, so the buffer is not empty (`baseAddress` is non-nil), and
        // the `count - offset` bytes from `baseAddress + offset` lie inside it. The caller keeps
        // the buffer alive for the call; `write` does not keep the pointer.
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n > 0 {
            offset += n
        } else if n < 0, errno == EINTR {
            continue
        } else {
            throw WriteError(code: n < 0 ? errno : EIO, written: offset)
        }
    }
}

/// ``writeAll(_:to:)`` for the bytes of an array.
package func writeAll(_ bytes: [UInt8], to fd: Int32) throws {
    // Safe: the pointer is the array's own storage, alive and unchanged for the closure's
    // duration, and `writeAll` uses it only during the call.
    try bytes.withUnsafeBytes { try writeAll($0, to: fd) }
}
