// A stand-in for the package's GzipCodec module in the fuzz build, which compiles ReplayKit's
// Input folder without NIO or compress-nio: `GunzipReader` and `GzipError` with the same API,
// over Debian's zlib through the CCompressZlib stand-in beside this folder.
import CCompressZlib

/// Why gzip data could not be read (the cases ReplayKit's GunzipStream tells apart).
package enum GzipError: Error, Equatable, CustomStringConvertible {
    case tooLarge
    case corrupt(String)
    case truncated
    case failed(String)

    package var description: String {
        switch self {
        case .tooLarge: return "the decompressed data is over the limit"
        case .corrupt(let what): return "corrupt gzip data: \(what)"
        case .truncated: return "the gzip stream is truncated"
        case .failed(let what): return "gzip failed: \(what)"
        }
    }
}

/// zlib's streaming inflate over pulled pieces, several members in a row (as the real one).
package final class GunzipReader {
    private var stream = z_stream()
    private let input: UnsafeMutableRawBufferPointer
    private var finished = false
    private var memberEnded = false
    private var pendingError: (any Error)?

    package init(pieceSize: Int = 256 * 1024) throws(GzipError) {
        input = .allocate(byteCount: max(pieceSize, 16), alignment: 1)
        guard CCompressZlib_inflateInit2(&stream, 15 + 16) == Z_OK else {
            input.deallocate()
            throw .failed("inflateInit2")
        }
    }

    deinit {
        inflateEnd(&stream)
        input.deallocate()
    }

    package func read(
        into buffer: UnsafeMutableRawBufferPointer, pull: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws -> Int {
        if let error = pendingError { throw error }
        do {
            return try inflateSome(into: buffer, pull: pull)
        } catch {
            let produced = buffer.count - Int(stream.avail_out)
            guard produced > 0 else { throw error }
            pendingError = error
            return produced
        }
    }

    private func inflateSome(
        into buffer: UnsafeMutableRawBufferPointer, pull: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws -> Int {
        if finished || buffer.isEmpty { return 0 }
        // Safe: zlib writes at most avail_out bytes from next_out, the caller's buffer.
        stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = UInt32(min(buffer.count, Int(UInt32.max)))
        while stream.avail_out > 0 {
            if stream.avail_in == 0 {
                let n = try pull(input)
                if n == 0 {
                    if !memberEnded && stream.total_in > 0 { throw GzipError.truncated }
                    finished = true
                    break
                }
                // Safe: zlib reads at most avail_in (n) bytes from next_in, the pulled piece.
                stream.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = UInt32(n)
            }
            if memberEnded {
                inflateReset(&stream)
                memberEnded = false
            }
            let rc = inflate(&stream, Z_NO_FLUSH)
            if rc == Z_STREAM_END {
                memberEnded = true
                continue
            }
            if rc == Z_BUF_ERROR { continue }
            guard rc == Z_OK else { throw GzipError.corrupt(stream.msg.map { String(cString: $0) } ?? "code \(rc)") }
        }
        return buffer.count - Int(stream.avail_out)
    }
}
