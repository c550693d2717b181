/// The four-byte signatures that start a zip archive's records (APPNOTE 4.3), little-endian.
enum ZipSignature {
    /// A local file header.
    static let localFileHeader: UInt32 = 0x0403_4B50
    /// A data descriptor (the signature is optional).
    static let dataDescriptor: UInt32 = 0x0807_4B50
    /// A central directory file header: the members are over.
    static let centralDirectory: UInt32 = 0x0201_4B50
    /// The end of central directory record (the whole of an archive with no members).
    static let endOfCentralDirectory: UInt32 = 0x0605_4B50
    /// The ZIP64 end of central directory record.
    static let zip64EndOfCentralDirectory: UInt32 = 0x0606_4B50
    /// The archive extra data record, before an encrypted central directory.
    static let archiveExtraData: UInt32 = 0x0806_4B50
    /// The marker at the start of a split archive that turned out to need one part
    /// (`PK00`), skipped.
    static let singleSegmentMarker: UInt32 = 0x3030_4B50

    /// Whether `signature` starts what comes after the members.
    static func endsMembers(_ signature: UInt32) -> Bool {
        signature == centralDirectory || signature == endOfCentralDirectory
            || signature == zip64EndOfCentralDirectory || signature == archiveExtraData
    }

    /// Whether `signature` starts a record that may follow a member's data.
    static func followsMember(_ signature: UInt32) -> Bool {
        signature == localFileHeader || endsMembers(signature)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The little-endian 16-bit integer at `i` (two bytes must be there).
    func le16(_ i: Int) -> UInt16 { UInt16(self[i]) | UInt16(self[i + 1]) << 8 }

    /// The little-endian 32-bit integer at `i` (four bytes must be there).
    func le32(_ i: Int) -> UInt32 { UInt32(le16(i)) | UInt32(le16(i + 2)) << 16 }

    /// The little-endian 64-bit integer at `i` (eight bytes must be there).
    func le64(_ i: Int) -> UInt64 { UInt64(le32(i)) | UInt64(le32(i + 4)) << 32 }
}
