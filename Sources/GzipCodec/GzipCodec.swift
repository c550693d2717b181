import NIOCore

/// The package's one gzip implementation: request bodies, collector bodies and `.gz` inputs.
///
/// Why two libraries behind it: libdeflate compresses a 100-event batch about 2-3x faster than
/// zlib's fastest level (on the delivery path, where gzip may cost at most 1.5x no gzip), but it
/// only works on whole buffers; zlib (through CompressNIO) inflates streams of any length, which
/// `.gz` inputs of gigabytes need.
package enum GzipCodec {
    /// libdeflate's level for request bodies: its fastest, which still shrinks batches of similar
    /// JSON events about 5x.
    package static let requestLevel: Int32 = 1

    /// Compressors are expensive to create (hundreds of KB of tables each), so a few are kept.
    private static let pool = CompressorPool(level: requestLevel, keep: 8)

    /// Gzips `bytes` as one member (libdeflate level ``requestLevel``).
    package static func compress(_ bytes: [UInt8]) throws(GzipError) -> [UInt8] {
        try pool.compress(bytes)
    }

    /// Gunzips `bytes` (one or more members) into at most `maxSize` bytes.
    package static func decompress(_ bytes: [UInt8], maxSize: Int = 64 << 20) throws(GzipError) -> [UInt8] {
        let input = ByteBuffer.withStorage(copying: bytes)
        var output = ByteBuffer()
        try decompress(input, into: &output, maxSize: maxSize)
        return Array(output.readableBytesView)
    }

    /// Gunzips `body` (one or more members) into `output`, replacing its contents.
    ///
    /// `output`'s storage is reused when it is uniquely referenced and large enough, and a given
    /// `inflater` is reset and reused, so a caller that keeps both allocates nothing per body.
    /// - Throws: ``GzipError/tooLarge`` as soon as the output would pass `maxSize` bytes;
    ///   ``GzipError/corrupt(_:)`` or ``GzipError/truncated`` for a body that is not whole gzip.
    package static func decompress(
        _ body: ByteBuffer, into output: inout ByteBuffer, maxSize: Int, inflater: GzipInflater? = nil
    ) throws(GzipError) {
        let zlib: GzipInflater
        if let inflater { zlib = inflater } else { zlib = try GzipInflater() }
        try zlib.reset()
        var input = body
        output.clear()
        output.reserveCapacity(min(maxSize + 1, max(4 * input.readableBytes, 16 * 1024)))
        while true {
            if output.writableBytes == 0 {
                guard output.capacity <= maxSize else { throw .tooLarge }
                output.reserveCapacity(min(maxSize + 1, output.capacity * 2))
            }
            try zlib.inflate(from: &input, to: &output)
            if output.readableBytes > maxSize { throw .tooLarge }
            if input.readableBytes == 0, output.writableBytes > 0, !zlib.hasPendingOutput { break }
        }
        try zlib.finish()
    }
}

extension ByteBuffer {
    /// A buffer holding `bytes` whose storage is allocated even when `bytes` is empty: CompressNIO
    /// hands zlib the buffers' base addresses, which must not be nil.
    static func withStorage(copying bytes: [UInt8]) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: max(bytes.count, 16))
        buffer.writeBytes(bytes)
        return buffer
    }
}
