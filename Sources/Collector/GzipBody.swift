import CDeflate
import CompressNIO
import NIOCore

/// Gunzips request bodies: one libdeflate call sized by the gzip trailer for the usual
/// single-member body, CompressNIO (zlib, streaming) for anything else.
enum GzipBody {
    /// Why a body was refused.
    enum Failure: Error {
        case tooLarge
        case invalid
    }

    /// The decompressed `body`, at most `maxSize` bytes.
    static func decompress(_ body: ByteBuffer, maxSize: Int) throws(Failure) -> ByteBuffer {
        if let fast = body.withUnsafeReadableBytes({ singleMember($0, maxSize: maxSize) }) {
            return fast
        }
        var input = body
        do {
            return try input.decompress(with: .gzip(), maxSize: maxSize)
        } catch let error as CompressNIOError where error == .bufferOverflow {
            throw .tooLarge
        } catch {
            throw .invalid
        }
    }

    /// Decompresses a body that is exactly one gzip member, using the size in its trailer
    /// (ISIZE, the last 4 bytes). Nil when the body is not exactly that (then zlib decides).
    private static func singleMember(_ bytes: UnsafeRawBufferPointer, maxSize: Int) -> ByteBuffer? {
        guard bytes.count >= 18, bytes[0] == 0x1F, bytes[1] == 0x8B else { return nil }
        let n = bytes.count
        let size = Int(bytes[n - 4]) | Int(bytes[n - 3]) << 8 | Int(bytes[n - 2]) << 16 | Int(bytes[n - 1]) << 24
        // A trailer may lie (it is only the size mod 2^32); zlib checks such bodies for real.
        guard size <= maxSize else { return nil }
        guard let d = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(d) }
        var out = ByteBufferAllocator().buffer(capacity: max(size, 1))
        var consumed = 0
        var produced = 0
        let result = out.withUnsafeMutableWritableBytes { dst in
            libdeflate_gzip_decompress_ex(d, bytes.baseAddress, n, dst.baseAddress, size, &consumed, &produced)
        }
        // Anything unusual (a second member, a wrong trailer, corrupt data) goes to zlib, which
        // gives the authoritative verdict.
        guard result == LIBDEFLATE_SUCCESS, consumed == n, produced == size else { return nil }
        out.moveWriterIndex(forwardBy: produced)
        return out
    }
}
