import CompressNIO
import NIOCore

/// Gzip helpers for request bodies (CompressNIO / zlib).
public enum Gzip {
    /// Gzips `bytes`.
    public static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        var input = ByteBuffer(bytes: bytes)
        let compressor = CompressionAlgorithm.gzip().compressor
        try compressor.startStream()
        defer { try? compressor.finishStream() }
        var output = ByteBufferAllocator().buffer(capacity: compressor.maxSize(from: input))
        try compressor.streamDeflate(from: &input, to: &output, flush: .finish)
        return Array(output.readableBytesView)
    }

    /// Gunzips `bytes` (at most `maxSize` bytes of output).
    public static func decompress(_ bytes: [UInt8], maxSize: Int = 64 << 20) throws -> [UInt8] {
        var input = ByteBuffer(bytes: bytes)
        let output = try input.decompress(with: .gzip(), maxSize: maxSize)
        return Array(output.readableBytesView)
    }
}
