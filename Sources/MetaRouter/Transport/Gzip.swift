import GzipCodec

/// Gzip for request bodies, through the package's one gzip implementation (``GzipCodec``:
/// CompressNIO/zlib, level 1, pooled compressors).
package enum Gzip {
    /// Why a body could not be compressed.
    package struct CompressionError: Error, CustomStringConvertible {
        package let description: String
    }

    /// Gzips `bytes` (zlib level 1).
    package static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        do {
            return try GzipCodec.compress(bytes)
        } catch {
            throw CompressionError(description: error.description)
        }
    }

    /// Gunzips `bytes` (one or more members; at most `maxSize` bytes of output).
    package static func decompress(_ bytes: [UInt8], maxSize: Int = 64 << 20) throws -> [UInt8] {
        try GzipCodec.decompress(bytes, maxSize: maxSize)
    }
}
