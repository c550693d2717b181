extension ZipReader {
    /// Fills `buffer` with up to its size of the current member's decompressed bytes; 0 at the
    /// member's end, after its CRC-32 and sizes are checked (or when no member is current).
    ///
    /// Bytes are handed out before the member's end is checked: a caller that must not act on a
    /// damaged member keeps its bytes until this returns 0.
    /// - Throws: ``ZipError`` naming the member (bad CRC-32, bad deflate data, sizes that do not
    ///   match, a bad data descriptor, a truncated archive), or `pull`'s error.
    package func read(into buffer: UnsafeMutableRawBufferPointer, pull: PullBytes) throws -> Int {
        if let failure { throw failure.error }
        guard let current, !current.ended, buffer.count > 0 else { return 0 }
        switch (current.header.method, current.header.hasDataDescriptor) {
        case (0, false): return try readStored(into: buffer, pull: pull)
        case (0, true): return try readStoredWithDescriptor(into: buffer, pull: pull)
        default: return try readDeflated(into: buffer, pull: pull)
        }
    }

    /// A stored member whose size is in its header.
    private func readStored(into buffer: UnsafeMutableRawBufferPointer, pull: PullBytes) throws -> Int {
        guard var member = current else { return 0 }
        let remaining = member.header.compressedSize - member.consumed
        if remaining == 0 {
            try finish(pull: pull)
            return 0
        }
        if window.available == 0, try window.fill(pull: pull) == 0 { throw fail(.truncated, skip: nil) }
        let n = Int(min(UInt64(min(buffer.count, window.available)), remaining))
        // The first n unconsumed bytes (n <= available), viewed until the window next fills.
        let bytes = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(window.unconsumed)[0..<n])
        // `buffer` has room for n bytes (n <= buffer.count) and the window holds n unconsumed
        // bytes (n <= available); the two do not overlap (the caller's memory is not the
        // window's block).
        buffer.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: n)
        member.crc = CRC32.update(member.crc, bytes)
        window.consume(n)
        member.consumed += UInt64(n)
        member.produced += UInt64(n)
        current = member
        if member.consumed == member.header.compressedSize { try finish(pull: pull) }
        return n
    }

    /// A deflated member, with its sizes in its header or in a data descriptor.
    private func readDeflated(into buffer: UnsafeMutableRawBufferPointer, pull: PullBytes) throws -> Int {
        guard var member = current, let inflater else { return 0 }
        let sized = !member.header.hasDataDescriptor
        while true {
            var input = window.unconsumed
            if sized {
                let allowed = member.header.compressedSize - member.consumed
                // A prefix of the window's unconsumed bytes (allowed < input.count), used by this
                // step only, before the window fills again.
                if UInt64(input.count) > allowed { input = UnsafeBufferPointer(rebasing: input[0..<Int(allowed)]) }
            }
            let step = inflater.inflate(input, into: buffer)
            window.consume(step.consumed)
            member.consumed += UInt64(step.consumed)
            if let message = step.failure {
                throw fail(.badDeflateData(message), skip: sized ? member.header.compressedSize - member.consumed : nil)
            }
            // The inflater wrote `step.produced` bytes at the start of `buffer` (at most its
            // count): the slice lies inside it and they are initialized.
            member.crc = CRC32.update(member.crc, UnsafeRawBufferPointer(rebasing: buffer[0..<step.produced]))
            member.produced += UInt64(step.produced)
            current = member
            if step.ended {
                if sized, member.consumed != member.header.compressedSize {
                    let short = member.header.compressedSize - member.consumed
                    throw fail(.sizeMismatch("the deflate data ends \(short) bytes before the compressed size"), skip: short)
                }
                try finish(pull: pull)
                return step.produced
            }
            if step.produced > 0 { return step.produced }
            if step.consumed > 0 { continue }
            // zlib needs more input.
            if sized, member.consumed == member.header.compressedSize {
                throw fail(.badDeflateData("the deflate data does not end within the compressed size"), skip: 0)
            }
            if try window.fill(pull: pull) == 0 { throw fail(.truncated, skip: nil) }
        }
    }

    /// Ends the current member: reads its data descriptor (bit 3) and checks CRC-32 and sizes.
    func finish(pull: PullBytes) throws {
        guard var member = current else { return }
        var expectedCRC = member.header.crc32
        if member.header.hasDataDescriptor {
            expectedCRC = try readDataDescriptor(pull: pull)
        } else if member.produced != member.header.uncompressedSize {
            throw fail(
                .sizeMismatch(
                    "\(member.produced) bytes decompressed; the header says \(member.header.uncompressedSize)"), skip: 0)
        }
        guard member.crc == expectedCRC else { throw fail(.badCRC(expected: expectedCRC, actual: member.crc), skip: 0) }
        member.ended = true
        current = member
    }

    /// Reads and checks what is left of the current member, handing out nothing: skips the
    /// rest of its compressed bytes when its sizes are known, else decompresses to find its end.
    func drain(pull: PullBytes) throws {
        guard let member = current, !member.ended else { return }
        if !member.header.hasDataDescriptor {
            try skipRaw(
                member.header.compressedSize - member.consumed, member: member.member.name,
                at: member.member.offset, pull: pull)
            current?.ended = true
            return
        }
        // Memory of this call only: `read` writes inside its count, and `defer` frees it.
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { scratch.deallocate() }
        while try read(into: scratch, pull: pull) > 0 {}
    }

    /// Consumes `count` raw bytes.
    func skipRaw(_ count: UInt64, member: String?, at offset: Int, pull: PullBytes) throws {
        var left = count
        while left > 0 {
            if window.available == 0, try window.fill(pull: pull) == 0 {
                throw fail(.truncated, member: member, at: offset, skip: nil)
            }
            let n = Int(min(UInt64(window.available), left))
            window.consume(n)
            left -= UInt64(n)
        }
    }
}
