import Foundation
import GzipCodec
import NIOCore

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

/// Decompresses a gzip stream (also several concatenated gzip members) with the package's
/// streaming ``GzipInflater``, a bounded piece at a time, so files of any size stream through.
final class GunzipStream: ByteStream {
    private let source: ByteStream
    private let path: String
    private let inflater: GzipInflater
    /// Compressed bytes read from `source` and not yet inflated.
    private var input: ByteBuffer
    /// Inflated bytes not yet handed out.
    private var output: ByteBuffer
    private let inputCapacity = 256 * 1024
    private var sourceEnded = false
    private var finished = false
    private var pendingError: InputError?

    init(source: ByteStream, path: String) throws {
        self.source = source
        self.path = path
        do {
            inflater = try GzipInflater()
        } catch {
            throw InputError("\(path): cannot start gzip decompression")
        }
        input = ByteBufferAllocator().buffer(capacity: inputCapacity)
        output = ByteBufferAllocator().buffer(capacity: inputCapacity)
    }

    var fileBytesRead: UInt64 { source.fileBytesRead }

    /// Hands over the bytes decompressed before a failure first; the failure comes with the next call.
    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        if output.readableBytes == 0 {
            if let e = pendingError { throw e }
            do {
                try refill(upTo: count)
            } catch let e as InputError {
                guard output.readableBytes > 0 else { throw e }
                pendingError = e
            }
        }
        let n = min(count, output.readableBytes)
        output.readWithUnsafeReadableBytes { bytes in
            // Safe: the caller gives room for `count` bytes at `into`, and n <= count.
            UnsafeMutableRawPointer(into).copyMemory(from: bytes.baseAddress!, byteCount: n)
            return n
        }
        return n
    }

    /// Inflates until `output` holds some bytes or the stream is over (0 bytes then).
    private func refill(upTo count: Int) throws {
        output.clear()
        let room = min(max(count, 1), inputCapacity)
        if output.capacity < room { output.reserveCapacity(room) }
        while output.readableBytes == 0, !finished {
            if input.readableBytes == 0, !inflater.hasPendingOutput {
                if sourceEnded {
                    finished = true
                    try gzip { try inflater.finish() }
                    break
                }
                try readCompressed()
                continue
            }
            try gzip { try inflater.inflate(from: &input, to: &output) }
        }
    }

    /// Reads the next piece of the file into `input`; marks the end of the file.
    private func readCompressed() throws {
        input.clear()
        let n = try input.writeWithUnsafeMutableBytes(minimumWritableBytes: inputCapacity) { raw in
            // Safe: ByteBuffer storage is plain bytes that NIO itself only reads and writes as
            // UInt8, so binding it to UInt8 matches every other access to it.
            try source.read(into: raw.bindMemory(to: UInt8.self).baseAddress!, count: raw.count)
        }
        if n == 0 { sourceEnded = true }
    }

    /// Runs a gzip step, naming the file in its error.
    private func gzip(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch GzipError.truncated {
            throw InputError("\(path): the gzip stream is truncated")
        } catch GzipError.corrupt(let what) {
            throw InputError("\(path): corrupt gzip data: \(what)")
        } catch {
            throw InputError("\(path): \(error)")
        }
    }
}
