/// A local file header (APPNOTE 4.3.7), with ZIP64 sizes (4.5.3) taken from its extra field.
struct LocalFileHeader {
    /// The fixed part's length, before the name and the extra field.
    static let fixedLength = 30

    /// General-purpose bit flags.
    let flags: UInt16
    /// Compression method.
    let method: UInt16
    /// CRC-32 of the uncompressed data (0 with a data descriptor).
    let crc32: UInt32
    /// Compressed size (ZIP64 size when the extra field has one).
    let compressedSize: UInt64
    /// Uncompressed size (ZIP64 size when the extra field has one).
    let uncompressedSize: UInt64
    /// The name's bytes.
    let nameBytes: [UInt8]
    /// Whether the extra field has a ZIP64 record (so a data descriptor has 8-byte sizes).
    let isZip64: Bool
    /// The whole header's length: fixed part, name, extra field.
    let length: Int

    /// Whether the data is encrypted (bit 0, or bit 6: strong encryption).
    var isEncrypted: Bool { flags & 0x0041 != 0 }
    /// Whether sizes and CRC-32 are in a data descriptor after the data (bit 3).
    var hasDataDescriptor: Bool { flags & 0x0008 != 0 }
    /// Whether the member is a directory (its name ends with `/`).
    var isDirectory: Bool { nameBytes.last == UInt8(ascii: "/") }

    /// The header's length as far as its fixed part tells (`bytes` holds at least the fixed
    /// part).
    static func length(fixedPart bytes: UnsafeBufferPointer<UInt8>) -> Int {
        fixedLength + Int(bytes.le16(26)) + Int(bytes.le16(28))
    }

    /// Reads a whole header (`bytes` starts with its signature and holds all of it).
    /// - Throws: when a ZIP64 size is called for and the extra field has none.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(HeaderProblem) -> LocalFileHeader {
        let nameLength = Int(bytes.le16(26))
        let extraLength = Int(bytes.le16(28))
        let name = Array(bytes[fixedLength..<(fixedLength + nameLength)])
        // The caller's `bytes` hold the whole header, so the name and the extra field (their
        // lengths are the header's) lie inside it; both views are used only in this call.
        let extra = UnsafeBufferPointer(rebasing: bytes[(fixedLength + nameLength)..<(fixedLength + nameLength + extraLength)])
        var compressed = UInt64(bytes.le32(18))
        var uncompressed = UInt64(bytes.le32(22))
        let zip64 = zip64Record(extra)
        if let zip64 {
            // The local header's ZIP64 record holds both sizes (APPNOTE 4.5.3) when it holds
            // 16 bytes; a shorter one holds only the sizes whose 32-bit field is 0xFFFFFFFF.
            var k = 0
            if zip64.count >= 16 || uncompressed == 0xFFFF_FFFF, zip64.count >= k + 8 {
                uncompressed = zip64.le64(k)
                k += 8
            }
            if zip64.count >= 16 || compressed == 0xFFFF_FFFF, zip64.count >= k + 8 {
                compressed = zip64.le64(k)
            }
        }
        let flags = bytes.le16(6)
        if flags & 0x0008 == 0, compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF, zip64 == nil {
            throw HeaderProblem(message: "the header's sizes call for a ZIP64 extra field, which it does not have")
        }
        return LocalFileHeader(
            flags: flags, method: bytes.le16(8), crc32: bytes.le32(14), compressedSize: compressed,
            uncompressedSize: uncompressed, nameBytes: name, isZip64: zip64 != nil,
            length: fixedLength + nameLength + extraLength)
    }

    /// The data of the ZIP64 extended information record (id 0x0001) in an extra field.
    private static func zip64Record(_ extra: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        var k = 0
        while extra.count - k >= 4 {
            let id = extra.le16(k)
            let size = Int(extra.le16(k + 2))
            guard extra.count - k - 4 >= size else { return nil }
            // The guard above keeps the record's `size` bytes inside `extra`; the caller uses the
            // view while its buffer is valid.
            if id == 0x0001 { return UnsafeBufferPointer(rebasing: extra[(k + 4)..<(k + 4 + size)]) }
            k += 4 + size
        }
        return nil
    }
}

/// Why a local file header cannot be read.
struct HeaderProblem: Error {
    /// What is wrong.
    let message: String
}
