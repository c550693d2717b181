import CDeflate
import CompressNIO
import NIOCore
import Synchronization

/// Gzip for request bodies: compression through Debian's libdeflate, decompression through
/// CompressNIO (zlib).
package enum Gzip {
    /// Why a body could not be compressed.
    package struct CompressionError: Error, CustomStringConvertible {
        package let description: String
    }

    /// libdeflate's level for request bodies: its fastest. Batches of similar JSON events still
    /// shrink about 5x, for roughly 70-90 µs of CPU per 100-event batch on the benchmark machine
    /// (zlib's fastest level took 110-220 µs there), which keeps gzip's cost low (the
    /// benchmark's gzip target).
    static let requestLevel: Int32 = 1

    /// Compressors are expensive to create (hundreds of KB of tables), so a few are kept for reuse.
    private static let pool = CompressorPool(level: requestLevel, keep: 8)

    /// Gzips `bytes` (libdeflate level 1).
    package static func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        try pool.withCompressor { compressor in
            let bound = libdeflate_gzip_compress_bound(compressor, bytes.count)
            var out = [UInt8](repeating: 0, count: bound)
            let written = bytes.withUnsafeBytes { input in
                out.withUnsafeMutableBytes { output in
                    libdeflate_gzip_compress(compressor, input.baseAddress, input.count, output.baseAddress, output.count)
                }
            }
            guard written > 0 else { throw CompressionError(description: "libdeflate could not compress \(bytes.count) bytes") }
            out.removeLast(out.count - written)
            return out
        }
    }

    /// Gunzips `bytes` (at most `maxSize` bytes of output).
    package static func decompress(_ bytes: [UInt8], maxSize: Int = 64 << 20) throws -> [UInt8] {
        var input = ByteBuffer(bytes: bytes)
        let output = try input.decompress(with: .gzip(), maxSize: maxSize)
        return Array(output.readableBytesView)
    }
}

/// A small stack of libdeflate compressors shared by all threads: one is taken for a body and
/// put back after, so concurrent lanes never share one, and none is created per request.
final class CompressorPool: Sendable {
    /// The compressors are only touched by the thread that took one out of the mutex-guarded
    /// stack, until it puts it back: each is used by one thread at a time.
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private let level: Int32
    private let keep: Int
    private let idle = Mutex<[Handle]>([])

    init(level: Int32, keep: Int) {
        self.level = level
        self.keep = keep
    }

    deinit {
        idle.withLock { handles in
            for h in handles { libdeflate_free_compressor(h.pointer) }
        }
    }

    /// Runs `body` with a compressor of its own.
    func withCompressor<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
        let handle: Handle
        if let reused = idle.withLock({ $0.popLast() }) {
            handle = reused
        } else {
            guard let created = libdeflate_alloc_compressor(level) else {
                throw Gzip.CompressionError(description: "libdeflate could not create a compressor (out of memory?)")
            }
            handle = Handle(pointer: created)
        }
        defer {
            let extra: Handle? = idle.withLock { handles in
                guard handles.count < keep else { return handle }
                handles.append(handle)
                return nil
            }
            if let extra { libdeflate_free_compressor(extra.pointer) }
        }
        return try body(handle.pointer)
    }
}
