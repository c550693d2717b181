import ZstdCodec

/// Reads one part's records in order: decompresses the part as it goes and hands out one whole
/// record at a time (a record may straddle two reads: its bytes are kept until it is whole).
///
/// The bytes a record's fields point to stay valid until the next call to ``next(_:)`` or
/// ``peekTransition()`` on the same reader: they are in memory the reader owns, which only
/// those calls move or free.
final class PartReader {
    let name: String
    private let stream: any ByteStream
    private let zstd: ZstdReader
    /// Decompressed bytes, in memory this reader allocates and frees; `[start..<end]` are unread.
    private var memory: UnsafeMutableBufferPointer<UInt8>
    private var start = 0
    private var end = 0
    private var ended = false
    /// The input the records being read are of (set by each `I` record).
    private(set) var input = -1

    /// A reader of the part `name` of `store`, `size` bytes long.
    init(_ name: String, store: any PartitionStore, size: UInt64) throws {
        self.name = name
        stream = try store.open(name, size: size)
        zstd = try ZstdReader()
        memory = .allocate(capacity: 256 * 1024)
    }

    deinit { memory.deallocate() }

    /// Compressed bytes read so far.
    var compressedBytesRead: UInt64 { stream.fileBytesRead }

    /// The unread bytes.
    private var unread: PartitionRecordReader { PartitionRecordReader(UnsafeBufferPointer(rebasing: memory[start..<end])) }

    /// Calls `body` with a reader at the next record that is not an `I` record (those only set
    /// ``input``); nil at the end of the part. `body` must read exactly one record.
    func next<R>(_ body: (inout PartitionRecordReader) throws -> R) throws -> R? {
        while try fillWholeRecord() {
            var reader = unread
            if reader.nextTag == PartitionRecord.input {
                _ = try reader.tag()
                input = Int(try reader.varint())
                start += reader.offset
                continue
            }
            let value = try body(&reader)
            start += reader.offset
            return value
        }
        return nil
    }

    /// The position of the next transition record, without reading it
    /// (nil at the end of the part).
    func peekTransition() throws -> PartPosition? {
        while try fillWholeRecord() {
            var reader = unread
            let tag = try reader.tag()
            if tag == PartitionRecord.input {
                input = Int(try reader.varint())
                start += reader.offset
                continue
            }
            guard tag == PartitionRecord.transition else { throw PartitionDamage.unknownRecord }
            let line = Int(try reader.varint())
            _ = try reader.tag()
            let flags = try reader.tag()
            return PartPosition(input: input, line: line, event: flags & IdentityTransition.eventIndexFlag != 0 ? Int(try reader.varint()) : 0)
        }
        return nil
    }

    /// Whether the unread bytes begin with a whole record, reading more as needed; false at the
    /// end of the part. A part that ends inside a record is damaged.
    private func fillWholeRecord() throws -> Bool {
        while !unread.hasWholeRecord() {
            if ended {
                if start == end { return false }
                throw PartitionStoreError("\(name): \(PartitionDamage.cut)")
            }
            try readMore()
        }
        return true
    }

    /// Moves the unread bytes to the front (into larger memory when a record outgrows it) and
    /// decompresses more after them.
    private func readMore() throws {
        let count = end - start
        if count == memory.count {
            let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: memory.count * 2)
            // Both regions are allocated, `count` bytes each at least, and do not overlap.
            larger.baseAddress!.initialize(from: memory.baseAddress! + start, count: count)
            memory.deallocate()
            memory = larger
        } else if start > 0, count > 0 {
            // Both ranges lie inside `memory`; `update(from:)` copies overlapping ranges as memmove.
            memory.baseAddress!.update(from: memory.baseAddress! + start, count: count)
        }
        (start, end) = (0, count)
        let stream = self.stream
        // The room after `end` is inside `memory`, which nothing else touches during the call.
        let room = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(memory)[end...])
        let n = try zstd.read(into: room) { raw in
            // The reader's own buffer of plain bytes, only ever used as UInt8.
            try stream.read(into: raw.bindMemory(to: UInt8.self).baseAddress!, count: raw.count)
        }
        if n == 0 { ended = true }
        end += n
    }
}

/// Where a record of a part stands in the unsharded run's read order: its input, its line, and
/// for a vendor's record of several events, the event's index in the record.
struct PartPosition: Comparable {
    var input: Int
    var line: Int
    var event = 0

    /// After every record of every input.
    static let end = PartPosition(input: .max, line: .max, event: .max)

    static func < (a: PartPosition, b: PartPosition) -> Bool { (a.input, a.line, a.event) < (b.input, b.line, b.event) }
}
