import CompressNIO
import NIOCore

/// Gzip helpers for request bodies (CompressNIO / zlib).
public enum Gzip {
    /// Request bodies use zlib's fastest level: batches of similar JSON events still shrink
    /// about 5-8x, at a fraction of the default level's CPU time (the benchmark's gzip target).
    static let requestConfiguration = ZlibConfiguration(compressionLevel: .fastestCompression)

    /// Gzips `bytes` (zlib level 1).
    public static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        var input = ByteBuffer(bytes: bytes)
        let compressor = CompressionAlgorithm.gzip(configuration: requestConfiguration).compressor
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
