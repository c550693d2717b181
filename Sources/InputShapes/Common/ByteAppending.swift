import JSONCore

extension Array where Element == UInt8 {
    /// Appends `bytes` with one copy into reserved room (JSONCore's ``ByteCursor``), cheaper for
    /// short runs than `append(contentsOf:)`'s generic path.
    @inline(__always)
    mutating func appendRaw(_ bytes: UnsafeBufferPointer<UInt8>) {
        appendBytes(upTo: bytes.count) { $0.write(bytes) }
    }
}
