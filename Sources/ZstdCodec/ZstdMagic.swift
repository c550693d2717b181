/// Recognizing zstd data by its first bytes.
package enum ZstdMagic {
    /// A zstd frame's first four bytes (0xFD2FB528, little-endian).
    package static let bytes: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    /// Whether `prefix` starts a zstd frame.
    package static func matches<C: Collection>(_ prefix: C) -> Bool where C.Element == UInt8 {
        prefix.count >= 4 && prefix.prefix(4).elementsEqual(bytes)
    }
}
