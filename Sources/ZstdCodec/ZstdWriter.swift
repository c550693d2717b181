import CZstd

/// Compresses a stream a piece at a time into zstd frames, appended to the caller's array. One
/// frame per ``finishFrame(into:)``: a file made of frames written one after another reads as
/// one stream (``ZstdReader``, `zstd -d`). Used by one thread at a time.
package final class ZstdWriter {
    // Owned and freed by this writer; libzstd's context is used by one thread at a time.
    private let context: OpaquePointer
    /// Bytes compressed into the current frame so far.
    package private(set) var frameInputBytes = 0

    /// A writer at compression `level` (1 is zstd's fastest positive level; negative levels
    /// trade ratio for speed).
    package init(level: Int32 = 1) throws(ZstdError) {
        guard let context = ZSTD_createCCtx() else { throw .failed("cannot create a compression context") }
        self.context = context
        let set = ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
        if ZSTD_isError(set) != 0 {
            ZSTD_freeCCtx(context)
            throw .failed(String(cString: ZSTD_getErrorName(set)))
        }
    }

    deinit { ZSTD_freeCCtx(context) }

    /// Compresses `bytes` into the current frame, appending what libzstd emits to `out`.
    package func write(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) throws(ZstdError) {
        frameInputBytes += bytes.count
        try run(bytes, ZSTD_e_continue, into: &out)
    }

    /// Ends the current frame, appending the rest of it to `out`; the next write starts a new one.
    package func finishFrame(into out: inout [UInt8]) throws(ZstdError) {
        try run(UnsafeRawBufferPointer(start: nil, count: 0), ZSTD_e_end, into: &out)
        frameInputBytes = 0
    }

    /// Compresses `bytes` (with `directive`) until libzstd has taken all of it and, for the end
    /// of a frame, flushed it.
    private func run(_ bytes: UnsafeRawBufferPointer, _ directive: ZSTD_EndDirective, into out: inout [UInt8]) throws(ZstdError) {
        var source = ZSTD_inBuffer(src: bytes.baseAddress, size: bytes.count, pos: 0)
        while true {
            // Room for what the rest of the input can become, and for a frame's end.
            let chunk = min(ZSTD_CStreamOutSize(), ZSTD_compressBound(source.size - source.pos) + 1024)
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: chunk))
            let (remaining, written) = out.withUnsafeMutableBytes { raw -> (Int, Int) in
                // Safe: the room appended above is `chunk` bytes at `start`, inside the array,
                // which is not resized during the call; libzstd writes at most `size` bytes.
                var target = ZSTD_outBuffer(dst: raw.baseAddress! + start, size: chunk, pos: 0)
                let remaining = ZSTD_compressStream2(context, &target, &source, directive)
                return (remaining, target.pos)
            }
            out.removeLast(chunk - written)
            if ZSTD_isError(remaining) != 0 { throw .failed(String(cString: ZSTD_getErrorName(remaining))) }
            let done = directive == ZSTD_e_end ? remaining == 0 : source.pos == source.size
            if done { return }
        }
    }
}
