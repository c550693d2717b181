import CDeflate
import Synchronization

/// A small stack of libdeflate compressors shared by all threads: one is taken for a body and put
/// back after, so concurrent senders never share one and none is created per request once the
/// pool is warm.
final class CompressorPool: Sendable {
    /// A compressor is only touched by the thread that took it out of the mutex-guarded stack,
    /// until it puts it back: each is used by one thread at a time, which is all libdeflate asks.
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
            for handle in handles { libdeflate_free_compressor(handle.pointer) }
        }
    }

    /// Gzips `bytes` as one member.
    func compress(_ bytes: [UInt8]) throws(GzipError) -> [UInt8] {
        let handle = try take()
        defer { give(handle) }
        let bound = libdeflate_gzip_compress_bound(handle.pointer, bytes.count)
        var out = [UInt8](repeating: 0, count: bound)
        // Both pointers are valid for the closures' duration and for the counts passed with
        // them (the input's count, and `bound` bytes of output).
        let written = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                libdeflate_gzip_compress(handle.pointer, input.baseAddress, input.count, output.baseAddress, output.count)
            }
        }
        guard written > 0 else { throw .failed("libdeflate could not compress \(bytes.count) bytes") }
        out.removeLast(out.count - written)
        return out
    }

    private func take() throws(GzipError) -> Handle {
        if let reused = idle.withLock({ $0.popLast() }) { return reused }
        guard let created = libdeflate_alloc_compressor(level) else {
            throw .failed("libdeflate could not create a compressor (out of memory?)")
        }
        return Handle(pointer: created)
    }

    private func give(_ handle: Handle) {
        let kept = idle.withLock { handles -> Bool in
            guard handles.count < keep else { return false }
            handles.append(handle)
            return true
        }
        if !kept { libdeflate_free_compressor(handle.pointer) }
    }
}
