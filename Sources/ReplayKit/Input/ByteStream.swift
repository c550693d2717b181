import CCompressZlib
import Foundation

/// A sequential source of bytes (a file descriptor, possibly through gunzip).
protocol ByteStream: AnyObject {
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

/// Decompresses a gzip stream (also several concatenated gzip members) with zlib.
final class GunzipStream: ByteStream {
    private let source: ByteStream
    private let path: String
    private var stream = z_stream()
    private var input: UnsafeMutablePointer<UInt8>
    private let inputCapacity = 256 * 1024
    private var finished = false
    private var memberEnded = false
    private var pendingError: InputError?

    init(source: ByteStream, path: String) throws {
        self.source = source
        self.path = path
        input = .allocate(capacity: inputCapacity)
        guard CCompressZlib_inflateInit2(&stream, 15 + 16) == Z_OK else {
            input.deallocate()
            throw InputError("\(path): cannot start gzip decompression")
        }
    }

    deinit {
        inflateEnd(&stream)
        input.deallocate()
    }

    var fileBytesRead: UInt64 { source.fileBytesRead }

    /// Hands over the bytes decompressed before a failure first; the failure comes with the next call.
    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        if let e = pendingError { throw e }
        do {
            return try inflateSome(into: into, count: count)
        } catch let e as InputError {
            let produced = count - Int(stream.avail_out)
            guard produced > 0 else { throw e }
            pendingError = e
            return produced
        }
    }

    private func inflateSome(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        if finished { return 0 }
        stream.next_out = into
        stream.avail_out = UInt32(min(count, Int(UInt32.max)))
        while stream.avail_out > 0 {
            if stream.avail_in == 0 {
                let n = try source.read(into: input, count: inputCapacity)
                if n == 0 {
                    if !memberEnded && stream.total_in > 0 {
                        throw InputError("\(path): the gzip stream is truncated")
                    }
                    finished = true
                    break
                }
                stream.next_in = input
                stream.avail_in = UInt32(n)
                if memberEnded {
                    inflateReset(&stream)
                    memberEnded = false
                }
            } else if memberEnded {
                inflateReset(&stream)
                memberEnded = false
            }
            let rc = inflate(&stream, Z_NO_FLUSH)
            if rc == Z_STREAM_END {
                memberEnded = true
                continue
            }
            if rc == Z_BUF_ERROR { continue }
            guard rc == Z_OK else {
                let msg = stream.msg.map { String(cString: $0) } ?? "code \(rc)"
                throw InputError("\(path): corrupt gzip data: \(msg)")
            }
        }
        return count - Int(stream.avail_out)
    }
}
