import CZlib

/// A small zip writer for the tests, with knobs for what real writers do (data descriptors
/// with and without a signature, ZIP64 sizes, directories) and for damage (wrong CRC-32,
/// encryption flags, other methods, sizes that lie).
struct ZipBuilder {
    /// How a member's sizes are given.
    enum Descriptor {
        /// In the local header.
        case none
        /// In a data descriptor with its signature (bit 3).
        case signed
        /// In a data descriptor without a signature (bit 3).
        case unsigned
    }

    /// One member to write.
    struct Entry {
        var name: String
        var data: [UInt8]
        var method: UInt16 = 8
        var descriptor: Descriptor = .none
        var zip64 = false
        /// Flags or-ed into the general-purpose flags (bit 0: encrypted).
        var extraFlags: UInt16 = 0
        /// XOR-ed into the CRC-32 written (0: the right one).
        var crcDamage: UInt32 = 0
        /// Added to the uncompressed size written in the header.
        var sizeLie: Int64 = 0
    }

    /// Where a written member lies.
    struct Placement {
        var headerOffset: Int
        var dataRange: Range<Int>
    }

    /// The archive, and where each entry lies in it.
    static func build(_ entries: [Entry], centralDirectory: Bool = true) -> (bytes: [UInt8], placements: [Placement]) {
        var out: [UInt8] = []
        var placements: [Placement] = []
        var central: [UInt8] = []
        for entry in entries {
            let offset = out.count
            let payload = entry.method == 8 ? deflate(entry.data) : entry.data
            let crc = crc32Of(entry.data) ^ entry.crcDamage
            let usize = UInt64(Int64(entry.data.count) + entry.sizeLie)
            let bit3 = entry.descriptor != .none
            let flags: UInt16 = (bit3 ? 0x0008 : 0) | 0x0800 | entry.extraFlags
            let name = Array(entry.name.utf8)
            var extra: [UInt8] = []
            if entry.zip64 {
                extra += le16(1) + le16(16) + le64(bit3 ? 0 : usize) + le64(bit3 ? 0 : UInt64(payload.count))
            }
            out += le32(0x0403_4B50) + le16(entry.zip64 ? 45 : 20) + le16(flags) + le16(entry.method) + le16(0) + le16(0x21)
            out += le32(bit3 ? 0 : crc)
            if entry.zip64 {
                out += le32(0xFFFF_FFFF) + le32(0xFFFF_FFFF)
            } else {
                out += le32(bit3 ? 0 : UInt32(payload.count)) + le32(bit3 ? 0 : UInt32(usize))
            }
            out += le16(UInt16(name.count)) + le16(UInt16(extra.count)) + name + extra
            let dataStart = out.count
            out += payload
            placements.append(Placement(headerOffset: offset, dataRange: dataStart..<out.count))
            if bit3 {
                if entry.descriptor == .signed { out += le32(0x0807_4B50) }
                out += le32(crc)
                out +=
                    entry.zip64
                    ? le64(UInt64(payload.count)) + le64(usize) : le32(UInt32(payload.count)) + le32(UInt32(usize))
            }
            central += le32(0x0201_4B50) + le16(0x031E) + le16(20) + le16(flags) + le16(entry.method) + le16(0) + le16(0x21)
            central += le32(crc) + le32(UInt32(payload.count)) + le32(UInt32(usize))
            central += le16(UInt16(name.count)) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(UInt32(offset)) + name
        }
        if centralDirectory {
            let start = out.count
            out += central
            out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(entries.count)) + le16(UInt16(entries.count))
            out += le32(UInt32(central.count)) + le32(UInt32(start)) + le16(0)
        }
        return (out, placements)
    }

    /// Raw deflate of `data` with zlib.
    static func deflate(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        // `stream` stays in this frame for its whole use (zlib checks it does not move), the
        // version and size tell zlib the layout, and deflateEnd frees its state.
        guard deflateInit2_(&stream, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { fatalError("deflateInit2") }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 16)
        var input = data
        let produced = input.withUnsafeMutableBufferPointer { inBuffer in
            out.withUnsafeMutableBufferPointer { outBuffer in
                // zlib reads `avail_in` bytes of `inBuffer` and writes at most `avail_out` into
                // `outBuffer`; both buffers outlive the call.
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                let status = CZlib.deflate(&stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "deflate: \(status)")
                return outBuffer.count - Int(stream.avail_out)
            }
        }
        return Array(out[0..<produced])
    }

    /// CRC-32 of `data` with zlib.
    static func crc32Of(_ data: [UInt8]) -> UInt32 {
        // zlib reads exactly `buffer.count` bytes of the array's storage.
        UInt32(data.withUnsafeBufferPointer { buffer in crc32(0, buffer.baseAddress, uInt(buffer.count)) })
    }

    /// Little-endian bytes of an integer.
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xFFFF)) + le16(UInt16(v >> 16)) }
    static func le64(_ v: UInt64) -> [UInt8] { le32(UInt32(v & 0xFFFF_FFFF)) + le32(UInt32(v >> 32)) }
}
