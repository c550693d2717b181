extension UInt8 {
    /// Whether the byte is JSON's insignificant whitespace (RFC 8259): space, tab, line feed or
    /// carriage return. The package's one definition of it.
    @inlinable
    package var isJSONWhitespace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}
