import CZstd

/// Decompresses a zstd stream of any length a piece at a time: compressed bytes are pulled from
/// the caller's source as needed and decompressed bytes handed out into the caller's memory.
/// Several concatenated frames (as `zstd -d` reads them, and as appended parts are) are one
/// stream; skippable frames are skipped. Used by one thread at a time.
package final class ZstdReader {
    // Owned and freed by this reader; libzstd's context is used by one thread at a time.
    private let context: OpaquePointer
    /// Compressed bytes pulled and not yet decompressed: `input[inputStart..<inputEnd]`.
    private var input: [UInt8]
    private var inputStart = 0
    private var inputEnd = 0
    private var sourceEnded = false
    /// Whether the last call left a frame unfinished (libzstd's hint was not 0).
    private var insideFrame = false
    /// Whether libzstd may hold output it could not write for lack of room.
    private var outputWasFull = false
    private var pendingError: (any Error)?

    /// A reader that pulls up to `pieceSize` compressed bytes at a time.
    package init(pieceSize: Int = 128 * 1024) throws(ZstdError) {
        guard let context = ZSTD_createDCtx() else { throw .failed("cannot create a decompression context") }
        self.context = context
        input = [UInt8](repeating: 0, count: max(pieceSize, 64))
    }

    deinit { ZSTD_freeDCtx(context) }

    /// Fills `buffer` with up to its size of decompressed bytes; 0 at the end of the stream.
    ///
    /// Bytes decompressed before a failure are handed out first; the failure comes with the next
    /// call.
    /// - Parameter pull: reads compressed bytes into the given memory and returns how many (0 at
    ///   the end of the source); its errors are rethrown as they are.
    /// - Throws: ``ZstdError/corrupt(_:)`` or ``ZstdError/truncated`` for a stream that is not
    ///   whole zstd, or `pull`'s error.
    package func read(
        into buffer: UnsafeMutableRawBufferPointer, pull: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws -> Int {
        guard buffer.count > 0, let base = buffer.baseAddress else { return 0 }
        if let error = pendingError { throw error }
        var produced = 0
        do {
            while produced == 0 {
                if inputStart == inputEnd, !outputWasFull {
                    if sourceEnded {
                        if insideFrame { throw ZstdError.truncated }
                        return 0
                    }
                    try refill(pull)
                    continue
                }
                produced = try step(into: base, count: buffer.count)
            }
        } catch {
            guard produced > 0 else { throw error }
            pendingError = error
        }
        return produced
    }

    /// Pulls the next piece of compressed bytes.
    private func refill(_ pull: (UnsafeMutableRawBufferPointer) throws -> Int) throws {
        inputStart = 0
        // Safe: `input` is this reader's own array, alive and not resized while `pull` writes
        // into it, and `pull` writes at most its count.
        inputEnd = try input.withUnsafeMutableBytes { try pull($0) }
        if inputEnd == 0 { sourceEnded = true }
    }

    /// One call to libzstd: decompresses what it can into `base[0..<count]` and returns how many
    /// bytes it wrote.
    private func step(into base: UnsafeMutableRawPointer, count: Int) throws -> Int {
        var output = ZSTD_outBuffer(dst: base, size: count, pos: 0)
        var consumed = 0
        let hint = input.withUnsafeBytes { raw -> Int in
            // Safe: `raw` is the input array's memory, valid for the call; libzstd reads only
            // `inputStart..<inputEnd` of it and reports how far it got in `pos`.
            var source = ZSTD_inBuffer(src: raw.baseAddress! + inputStart, size: inputEnd - inputStart, pos: 0)
            let hint = ZSTD_decompressStream(context, &output, &source)
            consumed = source.pos
            inputStart += source.pos
            return hint
        }
        if ZSTD_isError(hint) != 0 {
            throw ZstdError.corrupt(String(cString: ZSTD_getErrorName(hint)))
        }
        // A call that neither read nor wrote (a flush after a frame's last byte filled the
        // caller's memory) says only what the next frame's header needs: the frame is not open.
        if consumed > 0 || output.pos > 0 { insideFrame = hint != 0 }
        outputWasFull = output.pos == count
        return output.pos
    }
}
