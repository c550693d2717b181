import Foundation
import JSONCore

/// One record of a dead-letter file, as read back (see ``DeadLetterWriter`` for the format).
struct DeadLetterRecord: Sendable {
    /// The record exactly as stored (without its newline): a record that is kept is written back
    /// byte for byte.
    let text: [UInt8]
    /// The record's line number in its dead-letter file.
    let index: Int
    let reason: String
    let detail: String
    /// The input and line the event came from.
    let source: String
    let line: Int
    /// The original bytes (`raw` or `raw_base64`); nil when they are in a side file
    /// (`raw_file`) or the record cannot be read.
    let raw: [UInt8]?
    /// The side file holding the bytes of a record too large to hold them.
    let rawFile: String?

    /// The reason given to a line of a dead-letter file that is not a record (for example the
    /// torn end of a file a crash cut short): it is listed and kept, never sent.
    static let unreadable = "unreadable_record"

    /// Reads one record line.
    init(_ text: [UInt8], index: Int) {
        self.text = text
        self.index = index
        guard let object = (try? JSONValue(parsing: text))?.objectValue, let reason = object["reason"]?.stringValue else {
            reason = Self.unreadable
            detail = "not a dead-letter record"
            source = ""
            line = 0
            raw = nil
            rawFile = nil
            return
        }
        self.reason = reason
        detail = object["detail"]?.stringValue ?? ""
        source = object["source"]?.stringValue ?? ""
        if case .number(let n)? = object["line"], let line = n.intValue { self.line = line } else { line = 0 }
        if let raw = object["raw"]?.stringValue {
            self.raw = Array(raw.utf8)
        } else if let encoded = object["raw_base64"]?.stringValue, let data = Data(base64Encoded: encoded) {
            raw = [UInt8](data)
        } else {
            raw = nil
        }
        rawFile = object["raw_file"]?.stringValue
    }

    /// Why the record cannot be sent again, or nil when it can: it holds no event (the rest of an
    /// unreadable input or a damaged snapshot, a snapshot of an unknown version), its bytes are
    /// in a side file or were cut, or it is not a record.
    var notRetryable: String? {
        if reason == Self.unreadable { return "not a dead-letter record" }
        if [DeadLetterReason.readError, DeadLetterReason.damagedSnapshot, DeadLetterReason.unsupportedSnapshot].contains(reason) {
            return "holds no single event (\(reason))"
        }
        if rawFile != nil { return "its bytes are in a side file" }
        if detail.contains("raw truncated") { return "its bytes were cut when it was dead-lettered" }
        guard let raw, !raw.isEmpty else { return "holds no bytes" }
        return nil
    }

    /// The event's messageId, when the bytes are an event that has one.
    var messageId: String? {
        guard let raw else { return nil }
        return raw.withUnsafeBufferPointer { MessageIdProbe.messageId(of: $0) }
    }

    /// The records of the dead-letter file at `path`, in order (a file that does not exist has none).
    static func read(_ path: String) throws -> [DeadLetterRecord] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var records: [DeadLetterRecord] = []
        var start = 0
        var index = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            index += 1
            if end > start { records.append(DeadLetterRecord(Array(bytes[start..<end]), index: index)) }
            start = end + 1
        }
        return records
    }
}
