/// The records of a partition's parts (``PartitionLayout``), written by ``PartitionWorker`` and
/// read by a partitioned run, in zstd frames.
///
/// Each record starts with one tag byte; numbers are unsigned LEB128 varints:
///
/// | tag | record | fields |
/// |---|---|---|
/// | `I` | the next records are of input K (its index in the partition's input table) | K |
/// | `L` | a line the shard owns | line number, end offset, flags (1: cut at the reader's line limit), length, bytes |
/// | `E` | the input could not be read past here (shard 0's) | first line not read, offset, length, message |
/// | `T` | what a line teaches the identity store (``IdentityTransition``) | line number, kind, flags, then anonymousId, userId, previousId, groupId, each a length and bytes (0: none) |
///
/// Records of one input follow each other in line order, and inputs come in the partition's
/// input order, so one part, and the parts of a worker in order, are in the unsharded run's
/// read order.
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

    /// Appends a line record.
    static func appendLine(
        number: Int, endOffset: UInt64, truncated: Bool, bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]
    ) {
        out.append(line)
        appendVarint(UInt64(number), to: &out)
        appendVarint(endOffset, to: &out)
        out.append(truncated ? 1 : 0)
        appendBytes(bytes, to: &out)
    }

    /// Appends a read-error record.
    static func appendReadError(firstLineNotRead: Int, offset: UInt64, message: String, to out: inout [UInt8]) {
        out.append(readError)
        appendVarint(UInt64(firstLineNotRead), to: &out)
        appendVarint(offset, to: &out)
        var text = message
        text.withUTF8 { appendBytes($0, to: &out) }
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
            _ = try tag()
            _ = try field()
        case PartitionRecord.readError:
            _ = try varint()
            _ = try varint()
            _ = try field()
        case PartitionRecord.transition:
            _ = try varint()
            _ = try tag()
            _ = try tag()
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
