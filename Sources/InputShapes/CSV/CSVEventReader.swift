/// Reads a CSV or TSV file whose first record is a header and turns each later record into a
/// Segment event through a ``CSVMapping`` (or the default mapping), one at a time, in bounded
/// memory. Used by one thread at a time.
///
/// To resume, make a reader with the ``header`` an earlier reader read (its
/// ``CSVHeader/bytes`` are what a checkpoint stores), the ``CSVEvent/start`` of the first
/// record to read (or the ``CSVEvent/end`` of the last one done) and that record's number, and
/// give it a source that starts at that offset.
package final class CSVEventReader {
    /// The header; nil until the first call to ``next(pull:)`` of a reader that reads it.
    package private(set) var header: CSVHeader?
    /// The configured mapping; nil for the default mapping.
    package let mapping: CSVMapping?
    private let records: CSVRecordReader
    private var template: EventTemplate?
    private var record = CSVRecord()

    /// A reader of a whole file, from its first byte (the header) on.
    /// - Parameter mapping: nil for ``CSVMapping/defaultMapping(for:)``.
    package init(dialect: CSVDialect = .csv, mapping: CSVMapping? = nil, maximumRecordBytes: Int = 1 << 20) {
        self.mapping = mapping
        records = CSVRecordReader(dialect: dialect, maximumRecordBytes: maximumRecordBytes)
    }

    /// A reader that resumes: its source starts at file offset `offset`, where record number
    /// `recordNumber` (or a blank line before it) starts.
    /// - Throws: ``CSVError/header(_:)`` when the mapping does not fit the header,
    ///   ``CSVError/badResumePoint(_:)`` for a point that cannot be after the header.
    package init(
        dialect: CSVDialect = .csv, mapping: CSVMapping? = nil, header: CSVHeader, resumingAt offset: Int,
        recordNumber: Int, maximumRecordBytes: Int = 1 << 20
    ) throws {
        guard recordNumber >= 2, offset >= header.bytes.count else {
            throw CSVError.badResumePoint(
                "record \(recordNumber) at byte \(offset) is not after a header of \(header.bytes.count) bytes")
        }
        self.mapping = mapping
        self.header = header
        records = CSVRecordReader(
            dialect: dialect, startOffset: offset, firstRecordNumber: recordNumber, maximumRecordBytes: maximumRecordBytes)
        template = try EventTemplate(mapping: mapping ?? .defaultMapping(for: header.names), columns: header.names)
    }

    /// The file offset just past the last record read: where a resumed reader would start.
    package var offset: Int { records.offset }

    /// The next event; nil at the end of the file.
    /// - Throws: ``CSVError`` for a record that cannot be split, a ragged record or a bad cell
    ///   (the reader may go on to the next record after a ragged record or a bad cell), or
    ///   `pull`'s error.
    package func next(pull: PullBytes) throws -> CSVEvent? {
        guard let template = try template ?? readHeader(pull: pull) else { return nil }
        guard try records.next(into: &record, pull: pull) else { return nil }
        guard record.fieldCount == template.columns.count else {
            throw CSVError.raggedRecord(record: record.number, expected: template.columns.count, found: record.fieldCount)
        }
        var json: [UInt8] = []
        json.reserveCapacity(record.bytes.count * 2 + 64)
        try template.render(record, into: &json)
        return CSVEvent(number: record.number, start: record.start, end: record.end, json: json)
    }

    /// Reads the header record and fits the mapping to it; nil for an empty file.
    private func readHeader(pull: PullBytes) throws -> EventTemplate? {
        var raw: [UInt8] = []
        guard try records.next(into: &record, raw: &raw, pull: pull) else { return nil }
        let header = CSVHeader(names: record.fields, bytes: raw)
        let template = try EventTemplate(mapping: mapping ?? .defaultMapping(for: header.names), columns: header.names)
        self.header = header
        self.template = template
        return template
    }
}
