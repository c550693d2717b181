import Foundation
import GzipCodec
import ZstdCodec

/// A sequential source of bytes (a file descriptor, possibly through gunzip).
package protocol ByteStream: AnyObject {
    /// Reads up to `count` bytes into `into`; 0 means end of stream.
    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int
    /// Bytes consumed from the underlying file so far.
    var fileBytesRead: UInt64 { get }
}

/// Reads a file descriptor. The first bytes may be pushed back (after sniffing the gzip magic).
final class FileDescriptorStream: ByteStream {
    let fd: Int32
    let ownsDescriptor: Bool
    let path: String
    private(set) var fileBytesRead: UInt64 = 0
    private var pushedBack: [UInt8] = []

    init(fd: Int32, ownsDescriptor: Bool, path: String) {
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
        self.path = path
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// Returns bytes read by ``sniff(_:)`` before reading further.
    func pushBack(_ bytes: [UInt8]) { pushedBack = bytes + pushedBack }

    /// Forgets pushed-back bytes (after seeking).
    func discardPushedBack() { pushedBack = [] }

    /// Reads up to `count` bytes for inspection; push them back to re-read them.
    func sniff(_ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var n = 0
        while n < count {
            // `out` has `count` > n elements, so `baseAddress` is non-nil and `+ n` stays inside it.
            let got = try out.withUnsafeMutableBufferPointer { try read(into: $0.baseAddress! + n, count: count - n) }
            if got == 0 { break }
            n += got
        }
        out.removeSubrange(n...)
        return out
    }

    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        if !pushedBack.isEmpty {
            let n = min(count, pushedBack.count)
            // `pushedBack` is not empty (checked above), so `baseAddress` is non-nil; `n` is at
            // most its count and at most the caller's `count`.
            pushedBack.withUnsafeBufferPointer { into.update(from: $0.baseAddress!, count: n) }
            pushedBack.removeFirst(n)
            return n
        }
        while true {
            let n = Foundation.read(fd, into, count)
            if n >= 0 {
                fileBytesRead += UInt64(n)
                return n
            }
            if errno == EINTR { continue }
            throw InputError("\(path): read failed: \(String(cString: strerror(errno)))")
        }
    }
}

/// A streaming decompressor (``GunzipReader``, ``ZstdReader``): fills the caller's memory with
/// decompressed bytes, pulling compressed ones as it needs them; 0 at the end.
protocol PieceDecompressor: AnyObject {
    func read(into buffer: UnsafeMutableRawBufferPointer, pull: (UnsafeMutableRawBufferPointer) throws -> Int) throws -> Int
}

extension GunzipReader: PieceDecompressor {}
extension ZstdReader: PieceDecompressor {}

/// Decompresses a compressed stream (gzip, also several concatenated members; zstd, also several
/// frames), a bounded piece at a time, so files of any size stream through.
final class DecompressingStream: ByteStream {
    private let source: ByteStream
    private let path: String
    private let decompressor: any PieceDecompressor

    /// A stream of `source`'s bytes decompressed with `format` (gzip or zstd); errors name `path`.
    init(source: ByteStream, path: String, format: Compression) throws {
        self.source = source
        self.path = path
        do {
            decompressor = format == .zstd ? try ZstdReader() : try GunzipReader()
        } catch {
            throw InputError("\(path): cannot start \(format == .zstd ? "zstd" : "gzip") decompression: \(error)")
        }
    }

    var fileBytesRead: UInt64 { source.fileBytesRead }

    /// Hands over the bytes decompressed before a failure first; the failure comes with the next call.
    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        let source = self.source
        do {
            return try decompressor.read(into: UnsafeMutableRawBufferPointer(start: into, count: count)) { raw in
                // Safe: `raw` is the decompressor's own buffer of plain bytes, only ever accessed
                // as UInt8, so binding it to UInt8 matches every other access to it.
                try source.read(into: raw.bindMemory(to: UInt8.self).baseAddress!, count: raw.count)
            }
        } catch GzipError.truncated {
            throw InputError("\(path): the gzip stream is truncated")
        } catch GzipError.corrupt(let what) {
            throw InputError("\(path): corrupt gzip data: \(what)")
        } catch let error as GzipError {
            throw InputError("\(path): \(error)")
        } catch let error as ZstdError {
            throw InputError("\(path): \(error)")
        }
    }
}
