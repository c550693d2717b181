/// Splits a CSV or TSV stream of any length into records, one at a time, in bounded memory (a
/// window that grows to the longest record, at most ``maximumRecordBytes``).
///
/// Each record comes with its number and its start and end offsets in the file. A reader made
/// with `startOffset` and `firstRecordNumber` reads a source that starts there (the caller seeks
/// to a record's start) and numbers and locates records as one reading from the start would. A
/// UTF-8 byte order mark is skipped at offset 0 only. Blank lines are skipped and not counted.
/// Used by one thread at a time.
package final class CSVRecordReader {
    /// The file's delimiter and quoting.
    package let dialect: CSVDialect
    /// The longest record accepted, in bytes (its line break included).
    package let maximumRecordBytes: Int
    private let parser: CSVRecordParser
    private let window: SourceWindow
    private var nextNumber: Int
    private var checkedByteOrderMark: Bool

    /// A reader of a source whose first byte is at file offset `startOffset` and whose first
    /// record is number `firstRecordNumber`.
    ///
    /// - Parameters:
    ///   - startOffset: 0 for a whole file; for a resumed read, a record's ``CSVRecord/start``
    ///     (or a record's ``CSVRecord/end``, with the next record's number).
    ///   - pieceSize: how many bytes to ask the source for at a time.
    package init(
        dialect: CSVDialect = .csv, startOffset: Int = 0, firstRecordNumber: Int = 1,
        maximumRecordBytes: Int = 1 << 20, pieceSize: Int = 64 << 10
    ) {
        self.dialect = dialect
        self.maximumRecordBytes = max(maximumRecordBytes, 1)
        parser = CSVRecordParser(delimiter: dialect.delimiter, quoting: dialect.quoting)
        window = SourceWindow(
            capacity: min(pieceSize, self.maximumRecordBytes + 1), maximumCapacity: self.maximumRecordBytes + 1,
            offset: startOffset)
        nextNumber = firstRecordNumber
        checkedByteOrderMark = startOffset != 0
    }

    /// The file offset of the first byte not yet consumed: the end of the last record read.
    package var offset: Int { window.offset }

    /// The number the next record will have.
    package var nextRecordNumber: Int { nextNumber }

    /// Reads the next record into `record` (reusing its storage); false at the end of the file.
    /// - Throws: ``CSVError`` for a record that cannot be split, or `pull`'s error.
    package func next(into record: inout CSVRecord, pull: PullBytes) throws -> Bool {
        try skipByteOrderMark(pull: pull)
        while true {
            if window.available == 0, try window.fill(pull: pull) == 0, window.sourceEnded { return false }
            let outcome = try parser.parse(
                window.unconsumed, atEnd: window.sourceEnded, into: &record, number: nextNumber, offset: window.offset)
            switch outcome {
            case .blank(let length):
                window.consume(length)
            case .record(let length):
                record.number = nextNumber
                record.start = window.offset
                record.end = window.offset + length
                window.consume(length)
                nextNumber += 1
                return true
            case .needMore:
                if try window.fill(pull: pull) == 0, !window.sourceEnded {
                    throw CSVError.recordTooLarge(record: nextNumber, offset: window.offset, limit: maximumRecordBytes)
                }
            }
        }
    }

    /// Reads the next record; nil at the end of the file.
    package func next(pull: PullBytes) throws -> CSVRecord? {
        var record = CSVRecord()
        return try next(into: &record, pull: pull) ? record : nil
    }

    /// Like ``next(into:pull:)``, and also sets `raw` to the record's bytes as they are in the
    /// file (for the header, which a resumed reader is given).
    func next(into record: inout CSVRecord, raw: inout [UInt8], pull: PullBytes) throws -> Bool {
        guard try next(into: &record, pull: pull) else { return false }
        // The record's bytes were the `record.end - record.start` bytes just before the window's
        // first unconsumed one; consuming does not move or free them, and nothing is pulled
        // between the parse and this copy.
        let length = record.end - record.start
        raw = Array(UnsafeBufferPointer(start: window.pointer - length, count: length))
        return true
    }

    /// Skips a UTF-8 byte order mark at offset 0.
    private func skipByteOrderMark(pull: PullBytes) throws {
        guard !checkedByteOrderMark else { return }
        checkedByteOrderMark = true
        _ = try window.require(3, pull: pull)
        if window.available >= 3, window.byte(0) == 0xEF, window.byte(1) == 0xBB, window.byte(2) == 0xBF {
            window.consume(3)
        }
    }
}
