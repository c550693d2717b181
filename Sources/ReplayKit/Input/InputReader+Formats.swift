import Foundation
import InputShapes
import ZstdCodec

extension InputReader {
    /// The elements of a JSON array, one record each, numbered from 1 (the checkpoint's line is
    /// the element's number, its offset the element's end). The array's structure is checked as
    /// it streams; a break in it is a read error for the rest.
    func readJSONArray(
        _ stream: ByteStream, skip: UInt64, from position: LinePosition, _ body: (InputLine) throws -> Bool
    ) throws -> LinePosition? {
        let resumed = position.offset > 0 && position.line > 1
        var skip = skip
        let reader = JSONArrayReader(
            position: resumed ? .afterElement(offset: Int(position.offset), index: position.line - 1) : .fileStart,
            maximumElementBytes: maxLineBytes)
        let pull: PullBytes = { room in
            // Safe: `room` is the reader's own buffer of plain bytes, only ever accessed as UInt8,
            // and `stream` writes at most its count. Skipped bytes are read into it and dropped
            // (a compressed input resumes by reading up to its resume point).
            let bytes = room.bindMemory(to: UInt8.self).baseAddress!
            while skip > 0 {
                let n = try stream.read(into: bytes, count: Int(min(UInt64(room.count), skip)))
                if n == 0 { return 0 }
                skip -= UInt64(n)
            }
            return try stream.read(into: bytes, count: room.count)
        }
        var last = position
        while true {
            let element: JSONArrayElement?
            do {
                element = try reader.next(pull: pull)
            } catch let error as JSONArrayError {
                throw InputError("\(source.path): not a whole JSON array: \(error)")
            }
            guard let element else { return last }
            let carryOn = try element.bytes.withUnsafeBufferPointer {
                try body(
                    InputLine(
                        bytes: $0, lineNumber: element.index, startOffset: UInt64(element.start), endOffset: UInt64(element.end),
                        truncated: false, fileBytesRead: stream.fileBytesRead, fileSize: fileSize))
            }
            guard carryOn else { return nil }
            last = LinePosition(offset: UInt64(element.end), line: element.index + 1)
        }
    }

    /// CSV or TSV records, each mapped to an event (`inputs.csv`), numbered as records (the header
    /// is 1). Read from the start (the header comes first); records before the resume point are
    /// read and not handed over. A ragged row or a cell that does not fit its type is a refused
    /// line naming the record and the column; the next record is read as usual.
    func readCSV(_ stream: ByteStream, dialect: CSVDialect, from position: LinePosition, _ body: (InputLine) throws -> Bool) throws
        -> LinePosition?
    {
        let reader = CSVEventReader(
            dialect: dialect, mapping: shaping.csv?.mapping, maximumRecordBytes: shaping.csv?.maximumRecordBytes ?? maxLineBytes)
        let pull: PullBytes = { room in
            // Safe: `room` is the reader's own buffer of plain bytes, only ever accessed as UInt8,
            // and `stream` writes at most its count.
            try stream.read(into: room.bindMemory(to: UInt8.self).baseAddress!, count: room.count)
        }
        var last = position
        while true {
            let recordStart = reader.offset
            do {
                guard let event = try reader.next(pull: pull) else { return last }
                last = LinePosition(offset: UInt64(event.end), line: event.number + 1)
                guard UInt64(event.end) > position.offset else { continue }
                let carryOn = try event.json.withUnsafeBufferPointer {
                    try body(
                        InputLine(
                            bytes: $0, lineNumber: event.number, startOffset: UInt64(event.start), endOffset: UInt64(event.end),
                            truncated: false, fileBytesRead: stream.fileBytesRead, fileSize: fileSize))
                }
                guard carryOn else { return nil }
            } catch let error as CSVError {
                guard let number = error.skippableRecord else { throw InputError("\(source.path): \(error)") }
                last = LinePosition(offset: UInt64(reader.offset), line: number + 1)
                guard UInt64(reader.offset) > position.offset else { continue }
                let refused = InputLine(
                    bytes: UnsafeBufferPointer(start: nil, count: 0), lineNumber: number, startOffset: UInt64(recordStart),
                    endOffset: UInt64(reader.offset), truncated: false, fileBytesRead: stream.fileBytesRead, fileSize: fileSize)
                guard try body(refused.refused(reason: DeadLetterReason.invalidCSVRecord, detail: "\(error)")) else { return nil }
            }
        }
    }
}

extension CSVError {
    /// The record a ragged row or a bad cell is in, after which the reader goes on; nil for an
    /// error that ends the reading (broken quoting, an oversized record, a header that does not fit).
    var skippableRecord: Int? {
        switch self {
        case .raggedRecord(let record, _, _), .badCell(let record, _, _, _): record
        default: nil
        }
    }
}
