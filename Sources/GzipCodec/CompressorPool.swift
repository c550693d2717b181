import CompressNIO
import NIOCore
import Synchronization

/// A small stack of zlib compressors shared by all threads: one is taken for a body and put back
/// after (reset, not re-created), so concurrent senders never share one and none is created per
/// request once the pool is warm.
final class CompressorPool: Sendable {
    /// A compressor is only touched by the thread that took it out of the mutex-guarded stack,
    /// until it puts it back: each is used by one thread at a time, which is all zlib asks.
    private struct Handle: @unchecked Sendable {
        let compressor: ZlibCompressor
    }

    private let level: Int32
    private let keep: Int
    private let idle = Mutex<[Handle]>([])

    init(level: Int32, keep: Int) {
        self.level = level
        self.keep = keep
    }

    /// Gzips the readable bytes of `input` as one member.
    func compress(_ input: inout ByteBuffer) throws(GzipError) -> ByteBuffer {
        let handle = try take()
        defer { give(handle) }
        let compressor = handle.compressor
        var output = ByteBufferAllocator().buffer(capacity: compressor.maxSize(from: input))
        do {
            try compressor.reset()
            try compressor.deflate(from: &input, to: &output, flush: .finish)
        } catch {
            throw .failed("zlib could not compress \(input.readableBytes) bytes: \(error)")
        }
        return output
    }

    private func take() throws(GzipError) -> Handle {
        if let reused = idle.withLock({ $0.popLast() }) { return reused }
        do {
            let configuration = ZlibConfiguration(
                windowSize: 15, compressionLevel: level, memoryLevel: 8, strategy: .default)
            return Handle(compressor: try ZlibCompressor(algorithm: .gzip, configuration: configuration))
        } catch {
            throw .failed("zlib could not create a compressor: \(error)")
        }
    }

    private func give(_ handle: Handle) {
        idle.withLock { handles in
            if handles.count < keep { handles.append(handle) }
        }
    }
}
