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
        var out = ByteBuffer()
        try decompress(body, into: &out, decompressor: nil, maxSize: maxSize)
        return out
    }

    /// Decompresses `body` into `out`, replacing its contents, at most `maxSize` bytes.
    ///
    /// `out`'s storage is reused when it is uniquely referenced and large enough, and a given
    /// libdeflate `decompressor` is used instead of allocating one, so a caller that keeps both
    /// (the count-only server does, per connection) allocates nothing per body on the fast path.
    static func decompress(
        _ body: ByteBuffer, into out: inout ByteBuffer, decompressor: OpaquePointer?, maxSize: Int
    ) throws(Failure) {
        let fast = body.withUnsafeReadableBytes {
            singleMember($0, into: &out, decompressor: decompressor, maxSize: maxSize)
        }
        if fast { return }
        var input = body
        do {
            out = try input.decompress(with: .gzip(), maxSize: maxSize)
        } catch let error as CompressNIOError where error == .bufferOverflow {
            throw .tooLarge
        } catch {
            throw .invalid
        }
    }

    /// Decompresses a body that is exactly one gzip member into `out`, using the size in its
    /// trailer (ISIZE, the last 4 bytes). False when the body is not exactly that (then zlib decides).
    private static func singleMember(
        _ bytes: UnsafeRawBufferPointer, into out: inout ByteBuffer, decompressor: OpaquePointer?, maxSize: Int
    ) -> Bool {
        guard bytes.count >= 18, bytes[0] == 0x1F, bytes[1] == 0x8B else { return false }
        let n = bytes.count
        let size = Int(bytes[n - 4]) | Int(bytes[n - 3]) << 8 | Int(bytes[n - 2]) << 16 | Int(bytes[n - 1]) << 24
        // A trailer may lie (it is only the size mod 2^32); zlib checks such bodies for real.
        guard size <= maxSize else { return false }
        let owned = decompressor == nil ? libdeflate_alloc_decompressor() : nil
        defer { if let owned { libdeflate_free_decompressor(owned) } }
        guard let d = decompressor ?? owned else { return false }
        out.clear()
        var ok = false
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: max(size, 1)) { dst in
            var consumed = 0
            var produced = 0
            let result = libdeflate_gzip_decompress_ex(
                d, bytes.baseAddress, n, dst.baseAddress, size, &consumed, &produced)
            // Anything unusual (a second member, a wrong trailer, corrupt data) goes to zlib,
            // which gives the authoritative verdict.
            ok = result == LIBDEFLATE_SUCCESS && consumed == n && produced == size
            return ok ? produced : 0
        }
        return ok
    }
}
