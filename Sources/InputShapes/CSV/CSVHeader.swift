/// The header record of a delimited file: the column names, and the record's bytes as they are
/// in the file, which a reader that resumes later in the file is given instead of reading the
/// header again.
package struct CSVHeader: Sendable, Equatable {
    /// The column names, in order (invalid UTF-8 becomes U+FFFD).
    package let names: [String]
    /// The header record's bytes as in the file, its line break included (a byte order mark
    /// or blank lines before it not): what to store with a checkpoint.
    package let bytes: [UInt8]

    /// A header with these names and bytes (as ``CSVEventReader`` reads it).
    package init(names: [String], bytes: [UInt8]) {
        self.names = names
        self.bytes = bytes
    }

    /// Parses header bytes saved from an earlier reader (``bytes``; a byte order mark before
    /// them is allowed).
    /// - Throws: ``CSVError/badHeaderBytes(_:)`` when `bytes` are not exactly one record.
    package init(parsing bytes: [UInt8], dialect: CSVDialect) throws {
        let reader = CSVRecordReader(dialect: dialect, maximumRecordBytes: max(bytes.count, 1))
        var source = bytes[...]
        let pull: PullBytes = { room in
            let n = min(room.count, source.count)
            // `room` has space for `n` bytes and `source` holds at least `n`.
            room.copyBytes(from: source.prefix(n))
            source = source.dropFirst(n)
            return n
        }
        var record = CSVRecord()
        guard try reader.next(into: &record, pull: pull) else { throw CSVError.badHeaderBytes("no record") }
        guard record.end == bytes.count else {
            throw CSVError.badHeaderBytes("\(bytes.count - record.end) bytes follow the header record")
        }
        self.init(names: record.fields, bytes: Array(bytes[record.start...]))
    }
}
