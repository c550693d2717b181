/// The records of a partition's parts (``PartitionLayout``), written by ``PartitionWorker`` and
/// read by a partitioned run, in zstd frames.
///
/// Each record starts with one tag byte; numbers are unsigned LEB128 varints:
///
/// | tag | record | fields |
/// |---|---|---|
/// | `I` | the next records are of input K (its index in the partition's input table) | K |
/// | `L` | a line (or one event of a record) the shard owns | line number, end offset, flags (``LineFlags``), then what the flags say follows (event index; member; reason and detail; skip reason), length, bytes |
/// | `E` | the input could not be read past here (shard 0's) | first line not read, offset, length, message |
/// | `T` | what a line teaches the identity store (``IdentityTransition``) | line number, kind, flags, event index (when flagged), then anonymousId, userId, previousId, groupId, each a length and bytes (0: none) |
///
/// Records of one input follow each other in line order, and inputs come in the partition's
/// input order, so one part, and the parts of a worker in order, are in the unsharded run's
/// read order. A vendor's record that becomes several events (``RecordConverter``) is written
/// as one `L` record per event, each with its index in the record, so that a shard learns and
/// prepares them in the order a run does.
enum PartitionRecord {
    static let input = UInt8(ascii: "I")
    static let line = UInt8(ascii: "L")
    static let readError = UInt8(ascii: "E")
    static let transition = UInt8(ascii: "T")

    /// Appends `value` as an unsigned LEB128 varint.
    @inline(__always)
    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Appends a length and the bytes.
    @inline(__always)
    static func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        appendVarint(UInt64(bytes.count), to: &out)
        out.append(contentsOf: bytes)
    }

    /// Appends an input record.
    static func appendInput(_ index: Int, to out: inout [UInt8]) {
        out.append(input)
        appendVarint(UInt64(index), to: &out)
    }

    /// The flags of an `L` record, and which optional fields follow them.
    struct LineFlags: OptionSet {
        let rawValue: UInt8
        /// Cut at the reader's line limit.
        static let truncated = LineFlags(rawValue: 1)
        /// Not the last event of its record in this shard: the line settles with a later one.
        static let continues = LineFlags(rawValue: 2)
        /// The event's index in its record follows (absent: 0).
        static let eventIndex = LineFlags(rawValue: 4)
        /// The zip member the line is in follows.
        static let member = LineFlags(rawValue: 8)
        /// Refused before enrichment: a reason and a detail follow.
        static let refused = LineFlags(rawValue: 16)
        /// Settled by a rule without an event: the ``SkipReason`` follows.
        static let skipped = LineFlags(rawValue: 32)
    }

    /// Appends a line record for `line`, event `eventIndex` of its record; returns where its
    /// flags byte is, for ``LineFlags/continues`` to be set when another event of the record
    /// follows in the same part.
    @discardableResult
    static func appendLine(_ line: InputLine, eventIndex: Int = 0, to out: inout [UInt8]) -> Int {
        var flags: LineFlags = line.truncated ? .truncated : []
        if eventIndex > 0 { flags.insert(.eventIndex) }
        if line.member != nil { flags.insert(.member) }
        if line.refusal != nil { flags.insert(.refused) }
        if line.skip != nil { flags.insert(.skipped) }
        out.append(self.line)
        appendVarint(UInt64(line.lineNumber), to: &out)
        appendVarint(line.endOffset, to: &out)
        let flagsAt = out.count
        out.append(flags.rawValue)
        if eventIndex > 0 { appendVarint(UInt64(eventIndex), to: &out) }
        if let member = line.member { appendText(member, to: &out) }
        if let refusal = line.refusal {
            appendText(refusal.reason, to: &out)
            appendText(refusal.detail, to: &out)
        }
        if let skip = line.skip { appendText(skip.rawValue, to: &out) }
        appendBytes(line.bytes, to: &out)
        return flagsAt
    }

    /// Appends a length and the UTF-8 of `text`.
    static func appendText(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendBytes($0, to: &out) }
    }

    /// Appends a read-error record.
    static func appendReadError(firstLineNotRead: Int, offset: UInt64, message: String, to out: inout [UInt8]) {
        out.append(readError)
        appendVarint(UInt64(firstLineNotRead), to: &out)
        appendVarint(offset, to: &out)
        appendText(message, to: &out)
    }
}

/// Reads the records of a part's decompressed bytes, one at a time. A record cut short, or
/// one whose fields run past the bytes, is an error: parts are whole by construction (a
/// checksum over each part is checked before a run uses it), so this means a damaged part.
struct PartitionRecordReader {
    /// The bytes being read.
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the next record starts.
    private(set) var offset = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Whether every record was read.
    var atEnd: Bool { offset >= bytes.count }

    /// Whether the bytes end exactly at a record's end (a record may straddle the end of what
    /// the caller has so far): false when the next record is incomplete.
    func hasWholeRecord() -> Bool {
        var probe = self
        return (try? probe.skipRecord()) != nil
    }

    /// The next record's tag, without moving.
    var nextTag: UInt8? { atEnd ? nil : bytes[offset] }

    /// Reads a tag byte.
    mutating func tag() throws(PartitionDamage) -> UInt8 {
        guard offset < bytes.count else { throw .cut }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads a varint.
    @inline(__always)
    mutating func varint() throws(PartitionDamage) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw .cut }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// Reads a length and that many bytes (empty: none).
    @inline(__always)
    mutating func field() throws(PartitionDamage) -> UnsafeBufferPointer<UInt8> {
        let count = Int(try varint())
        guard count <= bytes.count - offset else { throw .cut }
        defer { offset += count }
        return UnsafeBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    /// Skips one whole record.
    mutating func skipRecord() throws(PartitionDamage) {
        switch try tag() {
        case PartitionRecord.input: _ = try varint()
        case PartitionRecord.line:
            _ = try varint()
            _ = try varint()
            let flags = PartitionRecord.LineFlags(rawValue: try tag())
            if flags.contains(.eventIndex) { _ = try varint() }
            let fields = [PartitionRecord.LineFlags.member, .refused, .refused, .skipped].filter(flags.contains).count
            for _ in 0..<(fields + 1) { _ = try field() }
        case PartitionRecord.readError:
            _ = try varint()
            _ = try varint()
            _ = try field()
        case PartitionRecord.transition:
            _ = try varint()
            _ = try tag()
            if try tag() & IdentityTransition.eventIndexFlag != 0 { _ = try varint() }
            for _ in 0..<4 { _ = try field() }
        default: throw .unknownRecord
        }
    }
}

/// Why a part's records cannot be read.
enum PartitionDamage: Error, Equatable, CustomStringConvertible {
    /// A record runs past the end of the part.
    case cut
    /// A record of a kind no partition writes.
    case unknownRecord

    var description: String {
        switch self {
        case .cut: "a record is cut short"
        case .unknownRecord: "a record of an unknown kind"
        }
    }
}
