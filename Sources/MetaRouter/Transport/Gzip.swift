import GzipCodec

/// Gzip for request bodies, through the package's one gzip implementation (``GzipCodec``:
/// CompressNIO/zlib, level 1, pooled compressors).
public enum Gzip {
    /// Why a body could not be compressed.
    public struct CompressionError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Gzips `bytes` (zlib level 1).
    public static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        do {
            return try GzipCodec.compress(bytes)
        } catch {
            throw CompressionError(description: error.description)
        }
    }

    /// Gunzips `bytes` (one or more members; at most `maxSize` bytes of output).
    public static func decompress(_ bytes: [UInt8], maxSize: Int = 64 << 20) throws -> [UInt8] {
        try GzipCodec.decompress(bytes, maxSize: maxSize)
    }
}
