extension ZipReader {
    /// A data descriptor found in the window.
    struct Descriptor {
        /// Its length: optional signature, CRC-32, two sizes of 4 or 8 bytes.
        let length: Int
        /// The CRC-32 it gives.
        let crc: UInt32
    }

    /// The most bytes a descriptor and the signature after it take: 4 + 4 + 8 + 8, and 4.
    static let descriptorLookahead = 28

    /// The size widths to try, the one the header calls for first.
    static func widths(_ header: LocalFileHeader) -> [Int] { header.isZip64 ? zip64Widths : plainWidths }
    private static let zip64Widths = [8, 4]
    private static let plainWidths = [4, 8]

    /// Reads the data descriptor right after a member's data (bit 3) and returns its CRC-32.
    ///
    /// The signature is optional and the sizes are 8 bytes with a ZIP64 header, else 4
    /// (APPNOTE 4.3.9); a descriptor whose sizes match the data under the other reading is
    /// accepted too, as some writers differ.
    func readDataDescriptor(pull: PullBytes) throws -> UInt32 {
        guard let member = current else { return 0 }
        _ = try window.require(Self.descriptorLookahead - 4, pull: pull)
        let bytes = window.unconsumed
        let widths = Self.widths(member.header)
        let starts = bytes.count >= 4 && bytes.le32(0) == ZipSignature.dataDescriptor ? [4, 0] : [0]
        for start in starts {
            for width in widths where bytes.count >= start + 4 + 2 * width {
                if Self.sizes(bytes, at: start + 4, width: width) == (member.consumed, member.produced) {
                    window.consume(start + 4 + 2 * width)
                    return bytes.le32(start)
                }
            }
        }
        let expected = starts[0] + 4 + 2 * widths[0]
        guard bytes.count >= expected else { throw fail(.truncated, skip: nil) }
        let (compressed, size) = Self.sizes(bytes, at: starts[0] + 4, width: widths[0])
        window.consume(expected)
        throw fail(
            .badDataDescriptor(
                "it gives sizes \(compressed) and \(size); the data has \(member.consumed) compressed bytes and \(member.produced) bytes"),
            skip: 0)
    }

    /// The compressed and uncompressed sizes of `width` bytes each at `i`.
    static func sizes(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int, width: Int) -> (UInt64, UInt64) {
        width == 8 ? (bytes.le64(i), bytes.le64(i + 8)) : (UInt64(bytes.le32(i)), UInt64(bytes.le32(i + 4)))
    }

    /// A stored member with a data descriptor: nothing says where the data ends, so each
    /// position is tested as the descriptor's start. A descriptor is accepted there when (a) it
    /// has the signature and both sizes equal the bytes before it (its CRC-32 is checked
    /// after, so damaged data is a CRC error), or (b) it has no signature, both sizes equal the
    /// bytes before it, its CRC-32 is theirs, and a local header or the central directory
    /// follows it. Bytes are handed out only once no descriptor can start among them.
    func readStoredWithDescriptor(into buffer: UnsafeMutableRawBufferPointer, pull: PullBytes) throws -> Int {
        guard var member = current else { return 0 }
        _ = try window.require(Self.descriptorLookahead, pull: pull)
        let bytes = window.unconsumed
        if bytes.isEmpty { throw fail(.truncated, skip: nil) }
        let testable = window.sourceEnded ? bytes.count : bytes.count - Self.descriptorLookahead + 1
        let count = min(testable, buffer.count)
        var k = 0
        while k < count, descriptor(in: bytes, at: k, member) == nil { k += 1 }
        if k == 0, let found = descriptor(in: bytes, at: 0, member) {
            window.consume(found.length)
            guard member.crc == found.crc else { throw fail(.badCRC(expected: found.crc, actual: member.crc), skip: 0) }
            member.ended = true
            current = member
            return 0
        }
        // The first k unconsumed bytes (k <= count <= bytes.count), viewed until they are
        // consumed below.
        let data = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[0..<k])
        // `buffer` has room for k bytes (k <= count <= buffer.count), the window holds them,
        // and the caller's memory is not the window's block.
        buffer.baseAddress!.copyMemory(from: data.baseAddress!, byteCount: k)
        member.crc = CRC32.update(member.crc, data)
        member.consumed += UInt64(k)
        member.produced += UInt64(k)
        window.consume(k)
        current = member
        return k
    }

    /// The descriptor that starts `k` bytes into `bytes`, if one does (see
    /// ``readStoredWithDescriptor(into:pull:)``).
    private func descriptor(in bytes: UnsafeBufferPointer<UInt8>, at k: Int, _ member: Current) -> Descriptor? {
        let size = member.consumed + UInt64(k)
        let room = bytes.count - k
        let widths = Self.widths(member.header)
        if room >= 4, bytes.le32(k) == ZipSignature.dataDescriptor {
            for width in widths where room >= 8 + 2 * width && Self.sizes(bytes, at: k + 8, width: width) == (size, size) {
                return Descriptor(length: 8 + 2 * width, crc: bytes.le32(k + 4))
            }
        }
        for width in widths where room >= 8 + 2 * width {
            // The cheap tests first; the CRC of the bytes before `k` only when the rest fit.
            guard Self.sizes(bytes, at: k + 4, width: width) == (size, size),
                ZipSignature.followsMember(bytes.le32(k + 4 + 2 * width))
            else { continue }
            // The k bytes before the candidate lie inside `bytes` (k < bytes.count).
            let crc = CRC32.update(member.crc, UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[0..<k]))
            if crc == bytes.le32(k) { return Descriptor(length: 4 + 2 * width, crc: crc) }
        }
        return nil
    }
}
