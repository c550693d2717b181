import Foundation

// Stand-ins for ReplayKit's `s3://` input types, compiled into the fuzz build of ReplayKit in
// place of Sources/ReplayKit/Input/S3*.swift, which need ObjectStorage (NIO, its HTTP client).
// The line path the linepreparer target fuzzes never reads an S3 object: these declare only what
// the file inputs' code names, and a stream that cannot be created.

/// The store an S3 object is read from (nothing, here).
package final class S3InputStore: Sendable {}

/// An S3 object an input names: the fields the file inputs' code reads.
package struct S3InputObject: Sendable, Hashable {
    package let bucket: String
    package let key: String
    package let etag: String
    package let size: UInt64
    package let lastModified: Date?
    package var isGzip = false
    package var firstBytes: [UInt8] = []
    package var url: String { "s3://\(bucket)/\(key)" }
}

/// An S3 object as a byte stream: never created by the fuzz targets.
final class S3InputStream: ByteStream {
    private(set) var fileBytesRead: UInt64 = 0
    init(object: S3InputObject, offset: UInt64) { fatalError("the fuzz build reads no S3 object") }
    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int { 0 }
}
