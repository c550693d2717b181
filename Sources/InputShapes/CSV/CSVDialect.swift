/// How a delimited text file separates and quotes its fields.
///
/// Records end with CRLF, LF or a lone CR. With quoting on (RFC 4180), a field that starts with
/// `"` is quoted: it ends at the next `"` not doubled, may hold delimiters and line breaks, and
/// `""` inside it is one `"`. A `"` inside an unquoted field is kept as it is.
package struct CSVDialect: Sendable, Equatable {
    /// The byte between fields: `,` or a tab, for example.
    package let delimiter: UInt8
    /// Whether a field that starts with `"` is quoted (RFC 4180). Off, `"` is an ordinary byte
    /// (the IANA text/tab-separated-values form, which has no quoting).
    package let quoting: Bool

    /// A dialect with this delimiter, which must not be `"`, CR or LF.
    package init(delimiter: UInt8, quoting: Bool = true) {
        precondition(
            delimiter != UInt8(ascii: "\"") && delimiter != 0x0A && delimiter != 0x0D,
            "CSVDialect: the delimiter cannot be a quote or a line break")
        self.delimiter = delimiter
        self.quoting = quoting
    }

    /// Comma-separated values (RFC 4180).
    package static let csv = CSVDialect(delimiter: UInt8(ascii: ","))
    /// Tab-separated values, with the same quoting as CSV (what spreadsheets and Python's
    /// `excel-tab` write).
    package static let tsv = CSVDialect(delimiter: 0x09)
}
