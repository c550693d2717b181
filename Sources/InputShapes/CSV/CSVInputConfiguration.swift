import JSONCore

/// The configuration of a CSV or TSV input: its dialect, record limit and mapping.
///
/// ```yaml
/// delimiter: ","           # ",", "\t", "comma", "tab", or another single ASCII character
/// quoting: true            # false: `"` is an ordinary byte
/// max_record_bytes: 1048576
/// mapping: { ... }         # CSVMapping; absent: the default mapping
/// ```
package struct CSVInputConfiguration: Sendable, Equatable {
    /// The delimiter and quoting.
    package var dialect: CSVDialect
    /// The longest record accepted.
    package var maximumRecordBytes: Int
    /// The mapping; nil for the default mapping.
    package var mapping: CSVMapping?

    /// The keys the configuration may have.
    static let keys = ["delimiter", "quoting", "max_record_bytes", "mapping"]

    /// A configuration.
    package init(dialect: CSVDialect = .csv, maximumRecordBytes: Int = 1 << 20, mapping: CSVMapping? = nil) {
        self.dialect = dialect
        self.maximumRecordBytes = maximumRecordBytes
        self.mapping = mapping
    }

    /// Reads the configuration (YAML converted to JSON by the caller).
    /// - Parameters:
    ///   - defaultDialect: the dialect when `delimiter` is absent (``CSVDialect/tsv`` for a
    ///     `.tsv` file, say).
    ///   - key: where `value` sits in the configuration, for errors.
    /// - Throws: ``MappingConfigError`` naming the key at fault.
    package init(parsing value: JSONValue, defaultDialect: CSVDialect = .csv, key: String = "csv") throws(MappingConfigError) {
        let object = try ConfigObject(value, key: key, allowed: Self.keys)
        var delimiter = defaultDialect.delimiter
        if let text = try object.string("delimiter") {
            guard let byte = Self.delimiter(text) else {
                throw MappingConfigError(
                    key: "\(key).delimiter", "expected \",\", \"\\t\", comma, tab or one ASCII character other than a quote or a line break")
            }
            delimiter = byte
        }
        let quoting = try object.bool("quoting") ?? defaultDialect.quoting
        self.init(
            dialect: CSVDialect(delimiter: delimiter, quoting: quoting),
            maximumRecordBytes: try object.positiveInteger("max_record_bytes") ?? 1 << 20,
            mapping: try object.members["mapping"].map { (value) throws(MappingConfigError) in
                try CSVMapping(parsing: value, key: "\(key).mapping")
            })
    }

    /// The delimiter byte `text` names, if it names one.
    static func delimiter(_ text: String) -> UInt8? {
        switch text {
        case "comma": return UInt8(ascii: ",")
        case "tab", "\\t": return 0x09
        default:
            let bytes = Array(text.utf8)
            guard bytes.count == 1, bytes[0] < 0x80, bytes[0] != UInt8(ascii: "\""), bytes[0] != 0x0A, bytes[0] != 0x0D
            else { return nil }
            return bytes[0]
        }
    }
}
