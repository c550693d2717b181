import Foundation
import ObjectStorage

/// A partition under an `s3://bucket/prefix/`: parts are uploaded from local files (in one PUT
/// when small, else as a multipart upload in pieces of ``pieceSize``, so memory stays bounded),
/// and an object exists under its name only once its upload completed.
package struct S3PartitionStore: PartitionStore {
    package let location: String
    let bucket: String
    /// The prefix, ending in `/` (or empty).
    let prefix: String
    let store: S3InputStore
    package let scratchDirectory: String
    /// The size of a multipart upload's pieces (at least S3's 5 MiB); a smaller file is one PUT.
    package var pieceSize = 16 << 20

    /// A store at `location` (`s3://bucket/prefix`), writing its files first in `scratchDirectory`
    /// (made by the worker when it writes its first part, not here: a store that only reads makes
    /// nothing on disk).
    package init(location: String, store: S3InputStore, scratchDirectory: String) throws {
        let parsed: S3Location
        do {
            parsed = try S3Location(parsing: location)
        } catch {
            throw PartitionStoreError("\(location): \(error)")
        }
        self.location = location
        bucket = parsed.bucket
        prefix = parsed.path.isEmpty || parsed.path.hasSuffix("/") ? parsed.path : parsed.path + "/"
        self.store = store
        self.scratchDirectory = scratchDirectory
    }

    /// Removes the scratch directory, which is this worker's alone, and whatever is left in it.
    package func workerEnded() {
        try? FileManager.default.removeItem(atPath: scratchDirectory)
    }

    private var client: S3Client { store.client }

    package func publish(file: String, as name: String) throws {
        let key = prefix + name
        guard let handle = FileHandle(forReadingAtPath: file) else { throw PartitionStoreError("cannot read \(file)") }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: 0)
        if size <= UInt64(pieceSize) {
            let bytes = [UInt8]((try? handle.readToEnd()) ?? Data())
            try waitFor { [client, bucket] in try await client.putObject(bucket: bucket, key: key, bytes: bytes) }
        } else {
            try upload(handle, key: key)
        }
        try? FileManager.default.removeItem(atPath: file)
    }

    /// A multipart upload of `handle`'s bytes, aborted when a piece fails.
    private func upload(_ handle: FileHandle, key: String) throws {
        let (client, bucket) = (self.client, self.bucket)
        let id = try waitFor { try await client.createMultipartUpload(bucket: bucket, key: key) }
        do {
            var etags: [String] = []
            while let data = try handle.read(upToCount: pieceSize), !data.isEmpty {
                let piece = [UInt8](data), number = etags.count + 1
                etags.append(try waitFor { try await client.uploadPart(bucket: bucket, key: key, uploadId: id, number: number, bytes: piece) })
            }
            let parts = etags
            try waitFor { try await client.completeMultipartUpload(bucket: bucket, key: key, uploadId: id, etags: parts) }
        } catch {
            try? waitFor { await client.abortMultipartUpload(bucket: bucket, key: key, uploadId: id) }
            throw error
        }
    }

    package func put(_ bytes: [UInt8], as name: String) throws {
        let key = prefix + name
        try waitFor { [client, bucket] in try await client.putObject(bucket: bucket, key: key, bytes: bytes) }
    }

    package func get(_ name: String) throws -> [UInt8]? {
        guard let size = try size(of: name) else { return nil }
        let stream = try open(name, size: size)
        var out = [UInt8](repeating: 0, count: Int(size))
        var filled = 0
        while filled < out.count {
            // `out` has `size` bytes; `filled` < size, so the pointer and count stay inside it.
            let n = try out.withUnsafeMutableBufferPointer { try stream.read(into: $0.baseAddress! + filled, count: $0.count - filled) }
            if n == 0 { throw PartitionStoreError("\(location)\(name): the object ended after \(filled) of \(size) bytes") }
            filled += n
        }
        return out
    }

    package func size(of name: String) throws -> UInt64? {
        let key = prefix + name
        do {
            return try waitFor { [client, bucket] in try await client.headObject(bucket: bucket, key: key).size }
        } catch let error as S3Error where error.kind == .noSuchKey {
            return nil
        }
    }

    package func list(_ folder: String) throws -> [String] {
        let base = prefix + folder
        let objects = try waitFor { [client, bucket] in try await client.listObjects(bucket: bucket, prefix: base) }
        return objects.map { String($0.key.dropFirst(prefix.count)) }.sorted()
    }

    package func open(_ name: String, size: UInt64) throws -> any ByteStream {
        S3PartStream(reader: client.reader(bucket: bucket, key: prefix + name, etag: nil, size: size, cancellation: store.cancellation))
    }
}

/// A part read from S3 as a ``ByteStream``, through the blocking, resumable ``S3ObjectReader``.
final class S3PartStream: ByteStream {
    private let reader: S3ObjectReader
    private(set) var fileBytesRead: UInt64 = 0

    init(reader: S3ObjectReader) { self.reader = reader }

    deinit { reader.close() }

    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        do {
            let n = try reader.read(into: into, count: count)
            fileBytesRead += UInt64(n)
            return n
        } catch let error as S3Error {
            throw InputFailure(error)
        }
    }
}
