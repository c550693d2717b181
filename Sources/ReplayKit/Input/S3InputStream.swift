import ObjectStorage

/// An S3 object as a ``ByteStream``: from `offset` to its end, through the blocking, resumable
/// ``S3ObjectReader`` (a reset or a stall is reopened with a `Range` request at the last byte
/// handed on, pinned to the object's ETag). No request is made before the first read. When the
/// object's first bytes were fetched to recognize it (``S3InputObject/head``: while it is
/// recognized, or for good when they are the whole object), the bytes of it from the start
/// offset on are handed on first, and a GET (if any is needed) starts after them.
///
/// Errors: a key gone since the listing is an ``InputError`` (the rest of the input is a
/// `read_error`, as for a file that vanished); every other failure is an ``InputFailure``, which
/// stops the run; a stop request (``S3InputStore/cancellation``) throws `CancellationError`.
final class S3InputStream: ByteStream {
    private let object: S3InputObject
    private var head: ArraySlice<UInt8>
    private var nextOffset: UInt64
    private var reader: S3ObjectReader?
    private(set) var fileBytesRead: UInt64 = 0

    /// A stream of `object` from byte `offset`.
    init(object: S3InputObject, offset: UInt64) {
        self.object = object
        let head = object.head ?? []
        self.head = offset < UInt64(head.count) ? head[Int(offset)...] : []
        nextOffset = offset
    }

    deinit { reader?.close() }

    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard count > 0 else { return 0 }
        if !head.isEmpty {
            let n = min(count, head.count)
            // `head` holds at least `n` bytes from its start index and the caller's buffer has
            // room for `count` >= n bytes.
            head.withUnsafeBufferPointer { into.update(from: $0.baseAddress!, count: n) }
            head.removeFirst(n)
            nextOffset += UInt64(n)
            fileBytesRead += UInt64(n)
            return n
        }
        let reader = self.reader ?? open()
        do {
            let n = try reader.read(into: into, count: count)
            fileBytesRead += UInt64(n)
            return n
        } catch let error as S3Error {
            if error.kind == .noSuchKey {
                throw InputError("\(object.url): the object is gone (deleted since it was listed): \(error.message)")
            }
            throw InputFailure(error)
        }
    }

    /// The reader from ``nextOffset``; past the object's end it makes no request.
    private func open() -> S3ObjectReader {
        let reader = object.store.client.reader(
            bucket: object.bucket, key: object.key, etag: object.etag, offset: nextOffset, size: object.size,
            cancellation: object.store.cancellation)
        self.reader = reader
        return reader
    }
}
