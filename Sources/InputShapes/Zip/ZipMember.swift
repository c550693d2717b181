/// A member of a zip archive, as its local file header describes it.
package struct ZipMember: Sendable, Equatable {
    /// The member's place among the members handed out, from 1 (directories are not counted).
    package var index: Int
    /// The name, decoded as UTF-8 (bytes that are not UTF-8, such as CP437 names, become
    /// U+FFFD; ``nameBytes`` has them as they are).
    package var name: String
    /// The name's bytes as stored.
    package var nameBytes: [UInt8]
    /// The file offset of the member's local file header.
    package var offset: Int
    /// The compression method: 0 (stored) or 8 (deflate).
    package var method: UInt16
    /// The compressed size; nil when it is in a data descriptor after the data.
    package var compressedSize: UInt64?
    /// The uncompressed size; nil when it is in a data descriptor after the data.
    package var uncompressedSize: UInt64?
    /// Whether sizes and CRC-32 follow the data (general-purpose bit 3).
    package var hasDataDescriptor: Bool
    /// Whether the header has a ZIP64 extra field.
    package var isZip64: Bool

    /// A member.
    package init(
        index: Int, name: String, nameBytes: [UInt8], offset: Int, method: UInt16, compressedSize: UInt64?,
        uncompressedSize: UInt64?, hasDataDescriptor: Bool, isZip64: Bool
    ) {
        self.index = index
        self.name = name
        self.nameBytes = nameBytes
        self.offset = offset
        self.method = method
        self.compressedSize = compressedSize
        self.uncompressedSize = uncompressedSize
        self.hasDataDescriptor = hasDataDescriptor
        self.isZip64 = isZip64
    }
}
