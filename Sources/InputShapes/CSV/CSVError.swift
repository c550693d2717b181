/// Why a delimited file could not be read or a record could not become an event. Each case
/// names the record (1-based, the header is record 1) and, where it helps, the byte offset.
package enum CSVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A quoted field that opens at `offset` is still open at the end of the file.
    case unclosedQuote(record: Int, offset: Int)
    /// Something other than a delimiter or a line break follows a closing quote at `offset`.
    case characterAfterQuote(record: Int, offset: Int)
    /// The record that starts at `offset` is longer than `limit` bytes.
    case recordTooLarge(record: Int, offset: Int, limit: Int)
    /// The record has `found` fields; the header has `expected`.
    case raggedRecord(record: Int, expected: Int, found: Int)
    /// A cell is not a value of its column's type.
    case badCell(record: Int, column: String, value: String, reason: String)
    /// The header does not fit the mapping (a column named twice, a mapped column missing).
    case header(String)
    /// The header bytes given to a resumed reader are not one record.
    case badHeaderBytes(String)
    /// A resumed reader was given a record number or offset that cannot follow the header.
    case badResumePoint(String)

    /// The error as one line of text for logs and messages.
    package var description: String {
        switch self {
        case .unclosedQuote(let record, let offset):
            return "record \(record): the quoted field opened at byte \(offset) is not closed"
        case .characterAfterQuote(let record, let offset):
            return "record \(record): byte \(offset) follows a closing quote; expected a delimiter or a line break"
        case .recordTooLarge(let record, let offset, let limit):
            return "record \(record) at byte \(offset) is longer than \(limit) bytes"
        case .raggedRecord(let record, let expected, let found):
            return "record \(record) has \(found) fields; the header has \(expected)"
        case .badCell(let record, let column, let value, let reason):
            return "record \(record), column \"\(column)\": \(reason): \"\(value)\""
        case .header(let message):
            return "header: \(message)"
        case .badHeaderBytes(let message):
            return "header bytes: \(message)"
        case .badResumePoint(let message):
            return "resume point: \(message)"
        }
    }
}
