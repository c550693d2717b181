/// Why a zip archive, or one of its members, could not be read.
///
/// ``canContinue`` tells whether ``ZipReader/nextMember(pull:)`` can go on to the next member
/// after this error: it can when the damaged member's end is known (its sizes are in its local
/// header, or its data ended and its data descriptor was read); it cannot when the end is not
/// known (data descriptor after data that cannot be decoded, a truncated archive, a broken
/// header), and then every later call throws the same error.
package struct ZipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    package enum Kind: Sendable, Equatable {
        /// The member's data does not have the CRC-32 its header or data descriptor gives.
        case badCRC(expected: UInt32, actual: UInt32)
        /// The member's deflate data is damaged (zlib's message).
        case badDeflateData(String)
        /// The member's sizes disagree with its data.
        case sizeMismatch(String)
        /// The member's data descriptor is not where its data ends, or does not match the data.
        case badDataDescriptor(String)
        /// The archive ends inside the member, or inside a header.
        case truncated
        /// The member is compressed with a method other than stored (0) and deflate (8).
        case unsupportedMethod(UInt16)
        /// The member is encrypted.
        case encrypted
        /// Not a local file header where one should start, or a header that cannot be read.
        case badHeader(String)
        /// The archive ends after its last member without a central directory.
        case missingCentralDirectory
    }

    /// What went wrong.
    package let kind: Kind
    /// The member's name; nil when the problem is not inside a member.
    package let member: String?
    /// The file offset of the member's local header, or of the byte at fault outside members.
    package let offset: Int
    /// Whether the reader can go on to the next member.
    package let canContinue: Bool

    /// An error.
    package init(_ kind: Kind, member: String?, offset: Int, canContinue: Bool) {
        self.kind = kind
        self.member = member
        self.offset = offset
        self.canContinue = canContinue
    }

    /// The error as one line of text for logs and messages.
    package var description: String {
        let place = member.map { "member \"\($0)\" (header at byte \(offset))" } ?? "byte \(offset)"
        let what: String
        switch kind {
        case .badCRC(let expected, let actual):
            what = "CRC-32 is \(hex(actual)), expected \(hex(expected))"
        case .badDeflateData(let message): what = "bad deflate data: \(message)"
        case .sizeMismatch(let message): what = "size mismatch: \(message)"
        case .badDataDescriptor(let message): what = "bad data descriptor: \(message)"
        case .truncated: what = "the archive is truncated"
        case .unsupportedMethod(let method): what = "unsupported compression method \(method) (only 0, stored, and 8, deflate)"
        case .encrypted: what = "the member is encrypted"
        case .badHeader(let message): what = message
        case .missingCentralDirectory: what = "the archive ends without a central directory"
        }
        return "zip: \(place): \(what)" + (canContinue ? "" : " (cannot go on to the next member)")
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
