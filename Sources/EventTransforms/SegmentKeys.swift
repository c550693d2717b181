import JSONCore

/// The top-level keys that steps read, as UTF-8 bytes.
enum SegmentKeys {
    /// `type`.
    static let type = Array("type".utf8)
    /// `event`.
    static let event = Array("event".utf8)
    /// The path `properties`.
    static let properties = FieldPath(components: ["properties"])!
    /// The path `traits`.
    static let traits = FieldPath(components: ["traits"])!
    /// The path `event`.
    static let eventPath = FieldPath(components: ["event"])!
}
