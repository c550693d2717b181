import CZlib

/// Raw deflate (RFC 1951, no zlib or gzip wrapper) decompression with zlib, as zip members hold
/// it: `inflateInit2` with window bits -15.
final class RawInflater {
    /// What one call to ``inflate(_:into:)`` did.
    struct Step {
        /// Input bytes consumed.
        var consumed: Int
        /// Output bytes written.
        var produced: Int
        /// Whether the deflate stream ended (its last block is done).
        var ended: Bool
        /// zlib's message when the data is damaged (then the stream cannot go on).
        var failure: String?
    }

    /// zlib's stream. It lives in memory of its own, because zlib keeps a pointer back to it
    /// (and checks that the stream has not moved); it is freed in `deinit`.
    private let stream: UnsafeMutablePointer<z_stream>

    /// A raw inflater.
    /// - Throws: zlib's message when it cannot start (out of memory).
    init() throws(RawInflaterFailure) {
        stream = .allocate(capacity: 1)
        // z_stream is a C struct of plain fields: zero (its default) is what zlib asks for
        // before init (no custom allocator, no input yet).
        stream.initialize(to: z_stream())
        // `stream` points at initialized memory that stays put; the version and size tell zlib
        // that this program and the library agree on the struct's layout.
        let status = inflateInit2_(stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw RawInflaterFailure(message: "zlib inflateInit2 failed (\(status))")
        }
    }

    deinit {
        // Init succeeded (else `init` threw and freed `stream` itself), so inflateEnd is due.
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Makes the inflater ready for a new stream.
    func reset() { inflateReset(stream) }

    /// Inflates from `input` into `output` (either may be empty); a step that consumes and
    /// produces nothing and does not end means zlib needs more input.
    func inflate(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableRawBufferPointer) -> Step {
        let inCount = min(input.count, Int(UInt32.max))
        let outCount = min(output.count, Int(UInt32.max))
        // zlib reads at most `avail_in` bytes from `next_in` and writes at most `avail_out` to
        // `next_out`: both are the counts of the caller's buffers (capped to 32 bits). It never
        // writes through `next_in` (the pointer is mutable only because `z_const` is empty).
        // Neither pointer is kept past this call in a way that is read again: the next call
        // sets both anew.
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.pointee.avail_in = uInt(inCount)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(outCount)
        let status = CZlib.inflate(stream, Z_NO_FLUSH)
        var step = Step(
            consumed: inCount - Int(stream.pointee.avail_in), produced: outCount - Int(stream.pointee.avail_out),
            ended: status == Z_STREAM_END)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        switch status {
        case Z_OK, Z_STREAM_END, Z_BUF_ERROR:
            break
        case Z_NEED_DICT:
            step.failure = "the data asks for a preset dictionary"
        default:
            // zlib's `msg` is a static string or null.
            step.failure = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
        }
        return step
    }
}

/// zlib's reason for refusing data.
struct RawInflaterFailure: Error {
    /// zlib's message.
    let message: String
}
