import Foundation
import JSONCore
import SimpleAnalytics

/// SimpleAnalytics payloads as an input of mr-replay: each payload is turned into its events
/// here, in the reading stage, so everything after it (enrichment, privacy rules, delivery,
/// dead letters, the report) treats them like lines of any other input.
///
/// - `.simpleAnalytics`: one payload per line (mr-collector's `/simpleanalytics` store). Each
///   event of a payload is handed over as a line numbered like the payload's line, with the
///   payload's offsets; all but the last have ``InputLine/endsLine`` false, so the line (and a
///   checkpoint) is settled only once all of its events are. A resumed run starts at a payload.
/// - `.simpleAnalyticsDocument`: the whole file is one payload (line 1).
///
/// A payload that is not valid is dead-lettered whole (the raw payload, reason
/// ``invalidPayload`` or `invalid_json`, the detail naming the field); an empty one counts as a
/// blank line.
enum SimpleAnalyticsInput {
    /// The dead-letter reason of a payload that is JSON but not a valid SimpleAnalytics payload.
    static let invalidPayload = "invalid_simpleanalytics_payload"
    /// Largest file read as one payload.
    static let maxDocumentBytes = 64 << 20

    /// What kind of SimpleAnalytics input the file at `path` is, or nil when it is none. Decided
    /// once per file: its first non-blank line is a payload, or (when that line is not JSON on its
    /// own, as in a pretty-printed file) the whole file is one.
    static func kind(ofFile path: String) -> InputSource.Kind? {
        (try? kind(of: InputSource(path: path, kind: .ndjson))) ?? nil
    }

    /// ``kind(ofFile:)`` for any input (a file or an S3 object). An S3 object's failures are
    /// thrown (its store refused, or failed past the retries); any other error reading it means
    /// it is no SimpleAnalytics input (the run reports it when it reads it).
    static func kind(of input: InputSource) throws -> InputSource.Kind? {
        guard let reader = try? InputReader(source: input.with(kind: .ndjson), maxLineBytes: 1 << 20) else {
            return nil
        }
        var kind: InputSource.Kind?
        var tryDocument = false
        try InputFailure.passingOn {
            try reader.forEachLine { line in
                guard let first = line.bytes.firstIndex(where: { !$0.isJSONWhitespace }) else { return true }
                if line.truncated { return false }
                if let value = try? JSONParser.parse(line.bytes) {
                    if SimpleAnalyticsPayload.isPayloadShaped(value) { kind = .simpleAnalytics }
                } else {
                    tryDocument = line.bytes[first] == UInt8(ascii: "{")
                }
                return false
            }
        }
        guard tryDocument else { return kind }
        var bytes: [UInt8]?
        try InputFailure.passingOn {
            bytes = try document(InputReader(source: input.with(kind: .simpleAnalyticsDocument)))
        }
        if let bytes, let value = try? JSONParser.parse(bytes), SimpleAnalyticsPayload.isPayloadShaped(value) {
            kind = .simpleAnalyticsDocument
        }
        return kind
    }

    /// Hands the events of every payload in `stream` to `body`, after skipping `skip` bytes
    /// (a resume in gzip or stdin), until the input ends or `body` returns false.
    static func read(stream: ByteStream, reader: InputReader, skip: UInt64, _ body: (InputLine) throws -> Bool) throws {
        var expander = Expander()
        guard reader.source.kind == .simpleAnalyticsDocument else {
            try reader.readLines(stream, skip: skip) { line in try expander.expand(line, body) }
            return
        }
        // A document is one line: a checkpoint past its start means it was settled whole.
        guard (reader.resumeAt?.offset ?? 0) == 0 else { return }
        let bytes = try readAll(stream, path: reader.source.path)
        let start = bytes.starts(with: byteOrderMark) ? byteOrderMark.count : 0
        try bytes.withUnsafeBufferPointer { all in
            let line = InputLine(
                bytes: UnsafeBufferPointer(rebasing: all[start...]), lineNumber: 1, startOffset: UInt64(start),
                endOffset: UInt64(all.count), truncated: false, fileBytesRead: stream.fileBytesRead,
                fileSize: reader.fileSize)
            _ = try expander.expand(line, body)
        }
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// The whole content of a document input (decompressed, without a byte order mark).
    static func document(_ reader: InputReader) throws -> [UInt8] {
        let bytes = try readAll(reader.openStream(), path: reader.source.path)
        return bytes.starts(with: byteOrderMark) ? Array(bytes.dropFirst(byteOrderMark.count)) : bytes
    }

    private static func readAll(_ stream: ByteStream, path: String) throws -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // `chunk` is not empty, so its base address is non-nil.
            let n = try chunk.withUnsafeMutableBufferPointer { try stream.read(into: $0.baseAddress!, count: $0.count) }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
            guard out.count <= maxDocumentBytes else {
                throw InputError("\(path): over \(maxDocumentBytes) bytes, too large for one SimpleAnalytics payload")
            }
        }
        return out
    }

    /// Turns payload lines into event lines; keeps its buffers from line to line.
    struct Expander {
        private var events: [[UInt8]] = []
        private static let blank: [UInt8] = [0x20]

        /// Hands the events of `line`'s payload to `body` (or the line itself when it is blank,
        /// over-long or refused); false when `body` asked to stop.
        mutating func expand(_ line: InputLine, _ body: (InputLine) throws -> Bool) throws -> Bool {
            guard !line.truncated, line.bytes.contains(where: { !$0.isJSONWhitespace }) else {
                return try body(line)  // blank, or too large: the walker counts or dead-letters it
            }
            let payload: SimpleAnalyticsPayload
            do {
                payload = try SimpleAnalyticsPayload(try JSONParser.parse(line.bytes))
            } catch let error as JSONError {
                return try body(refused(line, DeadLetterReason.invalidJSON, "not a SimpleAnalytics payload: \(error)"))
            } catch {
                return try body(refused(line, SimpleAnalyticsInput.invalidPayload, "SimpleAnalytics payload: \(error)"))
            }
            SimpleAnalyticsMapping.events(of: payload, into: &events)
            guard !events.isEmpty else {
                // No items and no counters: counted as a blank line.
                return try Self.blank.withUnsafeBufferPointer { bytes in
                    try body(
                        InputLine(
                            bytes: bytes, lineNumber: line.lineNumber, startOffset: line.startOffset,
                            endOffset: line.endOffset, truncated: false, fileBytesRead: line.fileBytesRead,
                            fileSize: line.fileSize))
                }
            }
            for index in events.indices {
                let keepGoing = try events[index].withUnsafeBufferPointer { bytes in
                    var event = InputLine(
                        bytes: bytes, lineNumber: line.lineNumber, startOffset: line.startOffset,
                        endOffset: line.endOffset, truncated: false, fileBytesRead: line.fileBytesRead,
                        fileSize: line.fileSize)
                    event.endsLine = index == events.count - 1
                    return try body(event)
                }
                if !keepGoing { return false }
            }
            return true
        }

        private func refused(_ line: InputLine, _ reason: String, _ detail: String) -> InputLine {
            var out = line
            out.refusal = (reason, detail)
            return out
        }
    }
}
