import NIOCore

/// Gunzips a stream of any length a piece at a time: compressed bytes are pulled from the
/// caller's source as needed and decompressed bytes handed out into the caller's memory, so a
/// `.gz` file of gigabytes streams through a few hundred KiB. Several concatenated members are
/// one stream. Used by one thread at a time.
///
/// Its API has no NIO types, so code that reads files through it (ReplayKit's `DecompressingStream`)
/// needs no NIO import.
package final class GunzipReader {
    private let inflater: GzipInflater
    /// Compressed bytes pulled and not yet inflated.
    private var input: ByteBuffer
    /// Inflated bytes not yet handed out.
    private var output: ByteBuffer
    private let pieceSize: Int
    private var sourceEnded = false
    private var finished = false
    private var pendingError: (any Error)?

    /// A reader that pulls up to `pieceSize` compressed bytes at a time.
    package init(pieceSize: Int = 256 * 1024) throws(GzipError) {
        inflater = try GzipInflater()
        self.pieceSize = max(pieceSize, 16)
        input = ByteBufferAllocator().buffer(capacity: self.pieceSize)
        output = ByteBufferAllocator().buffer(capacity: self.pieceSize)
    }

    /// Fills `buffer` with up to its size of decompressed bytes; 0 at the end of the stream.
    ///
    /// Bytes decompressed before a failure are handed out first; the failure comes with the next
    /// call.
    /// - Parameter pull: reads compressed bytes into the given memory and returns how many (0 at
    ///   the end of the source); its errors are rethrown as they are.
    /// - Throws: ``GzipError/corrupt(_:)`` or ``GzipError/truncated`` for a stream that is not
    ///   whole gzip, or `pull`'s error.
    package func read(
        into buffer: UnsafeMutableRawBufferPointer, pull: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws -> Int {
        if output.readableBytes == 0 {
            if let error = pendingError { throw error }
            do {
                try refill(upTo: buffer.count, pull: pull)
            } catch {
                guard output.readableBytes > 0 else { throw error }
                pendingError = error
            }
        }
        let n = min(buffer.count, output.readableBytes)
        guard n > 0, let target = buffer.baseAddress else { return 0 }
        output.readWithUnsafeReadableBytes { bytes in
            // Safe: `bytes` holds at least n readable bytes (n <= output.readableBytes) and
            // `buffer` has room for n (n <= buffer.count).
            target.copyMemory(from: bytes.baseAddress!, byteCount: n)
            return n
        }
        return n
    }

    /// Inflates until `output` holds some bytes or the stream is over.
    private func refill(upTo count: Int, pull: (UnsafeMutableRawBufferPointer) throws -> Int) throws {
        output.clear()
        let room = min(max(count, 1), pieceSize)
        if output.capacity < room { output.reserveCapacity(room) }
        while output.readableBytes == 0, !finished {
            if input.readableBytes == 0, !inflater.hasPendingOutput {
                if sourceEnded {
                    finished = true
                    try inflater.finish()
                    break
                }
                input.clear()
                let n = try input.writeWithUnsafeMutableBytes(minimumWritableBytes: pieceSize) { try pull($0) }
                if n == 0 { sourceEnded = true }
                continue
            }
            try inflater.inflate(from: &input, to: &output)
        }
    }
}
