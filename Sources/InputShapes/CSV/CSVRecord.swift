/// One record of a delimited file: its number, where it lies in the file and its fields'
/// contents (quotes removed, `""` made `"`).
///
/// The fields are stored back to back in one array, so a reader can refill the same record
/// without allocating (``CSVRecordReader/next(into:pull:)``).
package struct CSVRecord: Sendable, Equatable {
    /// The record's number: 1 for the first record of the file (the header), counting records,
    /// not lines (a quoted field may hold line breaks; blank lines are not records).
    package var number = 0
    /// The file offset of the record's first byte.
    package var start = 0
    /// The file offset just past the record's line break (or the end of the file): where the
    /// next record, or a blank line before it, starts.
    package var end = 0
    /// The fields' contents, one after another.
    package private(set) var bytes: [UInt8] = []
    /// Where each field's content ends in ``bytes``.
    package private(set) var fieldEnds: [Int] = []

    /// An empty record, to be filled by a reader.
    package init() {}

    /// A record with these fields (for tests and callers that build records themselves).
    package init(number: Int, start: Int, end: Int, fields: [String]) {
        self.number = number
        self.start = start
        self.end = end
        for field in fields {
            bytes.append(contentsOf: field.utf8)
            fieldEnds.append(bytes.count)
        }
    }

    /// How many fields the record has.
    package var fieldCount: Int { fieldEnds.count }

    /// The range of field `k`'s content in ``bytes``.
    package func fieldRange(_ k: Int) -> Range<Int> {
        (k == 0 ? 0 : fieldEnds[k - 1])..<fieldEnds[k]
    }

    /// Field `k`'s content.
    package func field(_ k: Int) -> ArraySlice<UInt8> { bytes[fieldRange(k)] }

    /// The fields decoded as UTF-8 (invalid bytes become U+FFFD).
    package var fields: [String] {
        (0..<fieldCount).map { String(decoding: field($0), as: UTF8.self) }
    }

    /// Forgets the fields, keeping the storage.
    mutating func removeFields() {
        bytes.removeAll(keepingCapacity: true)
        fieldEnds.removeAll(keepingCapacity: true)
    }

    /// Appends bytes to the field being built.
    mutating func appendToField(_ content: UnsafeBufferPointer<UInt8>) {
        bytes.appendRaw(content)
    }

    /// Appends one byte to the field being built.
    mutating func appendToField(_ byte: UInt8) { bytes.append(byte) }

    /// Ends the field being built.
    mutating func endField() { fieldEnds.append(bytes.count) }
}
