/// Streams the members of a zip archive in archive order by reading their local file headers
/// front to back: no seeking, no central directory needed (reading stops at it). Each member's
/// decompressed bytes are pulled a piece at a time (``read(into:pull:)``) and its CRC-32 is
/// checked at its end. Methods 0 (stored) and 8 (deflate) are read; sizes may be in the header
/// (ZIP64 too) or in a data descriptor after the data (general-purpose bit 3). Directory
/// entries are skipped. Used by one thread at a time.
///
/// Memory is bounded: a 64 KiB window (up to 192 KiB for the longest header) and zlib's state.
package final class ZipReader {
    /// The member being read, and how far.
    struct Current {
        /// The member as handed out.
        let member: ZipMember
        /// Its local header.
        let header: LocalFileHeader
        /// Compressed bytes consumed.
        var consumed: UInt64 = 0
        /// Decompressed bytes produced.
        var produced: UInt64 = 0
        /// CRC-32 of the bytes produced.
        var crc: UInt32 = 0
        /// Whether the data (and descriptor) are done and checked.
        var ended = false
    }

    /// An error that stopped the reader, and how to go on past it.
    struct Failure {
        /// The error, thrown again by every call until the reader goes on.
        let error: ZipError
        /// Compressed bytes to skip to reach the next header; nil when that is not known.
        let skip: UInt64?
    }

    /// The bytes pulled and not consumed.
    let window: SourceWindow
    /// zlib's inflater, made for the first deflated member and reset for each.
    var inflater: RawInflater?
    /// The member being read.
    var current: Current?
    /// The error that stopped the reader, until it goes on.
    var failure: Failure?
    private var finished = false
    private var started = false
    private var handedOut = 0

    /// A reader that asks its source for up to `pieceSize` bytes at a time.
    package init(pieceSize: Int = 64 << 10) {
        // Room for the longest local header: 30 bytes, a 64 KiB name and a 64 KiB extra field.
        window = SourceWindow(capacity: max(pieceSize, 64), maximumCapacity: max(pieceSize, 64) + (192 << 10))
    }

    /// The file offset of the first byte not yet consumed.
    package var offset: Int { window.offset }

    /// Moves to the next member (skipping what is left of the current one, directory entries
    /// and, after an error whose ``ZipError/canContinue`` is true, the rest of the damaged
    /// member).
    /// - Returns: the member, or nil at the central directory (the members are over).
    /// - Throws: ``ZipError`` (a member that cannot be read names it; one whose
    ///   ``ZipError/canContinue`` is true leaves the reader ready for the next call), or
    ///   `pull`'s error.
    package func nextMember(pull: PullBytes) throws -> ZipMember? {
        if finished { return nil }
        try recover(pull: pull)
        if let current, !current.ended { try drain(pull: pull) }
        current = nil
        while true {
            guard let header = try readHeader(pull: pull) else {
                finished = true
                return nil
            }
            if header.isDirectory {
                try drain(pull: pull)
                current = nil
                continue
            }
            handedOut += 1
            return current!.member
        }
    }

    /// Goes past a failure whose end is known; throws one whose end is not.
    private func recover(pull: PullBytes) throws {
        guard let failure else { return }
        guard let skip = failure.skip else { throw failure.error }
        self.failure = nil
        try skipRaw(skip, member: failure.error.member, at: failure.error.offset, pull: pull)
    }

    /// Reads the record at the window: a local header becomes ``current`` (and is returned);
    /// the start of the central directory gives nil.
    private func readHeader(pull: PullBytes) throws -> LocalFileHeader? {
        if !started {
            started = true
            if try window.require(4, pull: pull) {
                let signature = window.unconsumed.le32(0)
                if signature == ZipSignature.singleSegmentMarker || signature == ZipSignature.dataDescriptor {
                    window.consume(4)
                }
            }
        }
        let offset = window.offset
        guard try window.require(4, pull: pull) else {
            if window.available > 0 { throw fail(.truncated, member: nil, at: offset, skip: nil) }
            if offset == 0 { throw fail(.badHeader("the file is empty: not a zip archive"), member: nil, at: 0, skip: nil) }
            throw fail(.missingCentralDirectory, member: nil, at: offset, skip: nil)
        }
        let signature = window.unconsumed.le32(0)
        if ZipSignature.endsMembers(signature) { return nil }
        guard signature == ZipSignature.localFileHeader else {
            let found = String(signature, radix: 16)
            throw fail(.badHeader("no local file header (found signature 0x\(found))"), member: nil, at: offset, skip: nil)
        }
        guard try window.require(LocalFileHeader.fixedLength, pull: pull),
            try window.require(LocalFileHeader.length(fixedPart: window.unconsumed), pull: pull)
        else { throw fail(.truncated, member: nil, at: offset, skip: nil) }
        let header: LocalFileHeader
        do {
            header = try LocalFileHeader.parse(window.unconsumed)
        } catch {
            throw fail(.badHeader(error.message), member: nil, at: offset, skip: nil)
        }
        window.consume(header.length)
        let sized = !header.hasDataDescriptor
        let member = ZipMember(
            index: handedOut + 1, name: String(decoding: header.nameBytes, as: UTF8.self), nameBytes: header.nameBytes,
            offset: offset, method: header.method, compressedSize: sized ? header.compressedSize : nil,
            uncompressedSize: sized ? header.uncompressedSize : nil, hasDataDescriptor: !sized, isZip64: header.isZip64)
        current = Current(member: member, header: header)
        try checkReadable(header, member)
        return header
    }

    /// Refuses encrypted members and methods other than stored and deflate; gets zlib ready.
    private func checkReadable(_ header: LocalFileHeader, _ member: ZipMember) throws {
        let skip = header.hasDataDescriptor ? nil : header.compressedSize
        if header.isEncrypted { throw fail(.encrypted, skip: skip) }
        switch header.method {
        case 0:
            if !header.hasDataDescriptor, header.compressedSize != header.uncompressedSize {
                throw fail(
                    .sizeMismatch(
                        "a stored member's compressed size (\(header.compressedSize)) differs from its size (\(header.uncompressedSize))"),
                    skip: skip)
            }
        case 8:
            if let inflater {
                inflater.reset()
            } else {
                do {
                    inflater = try RawInflater()
                } catch {
                    throw fail(.badDeflateData(error.message), skip: skip)
                }
            }
        default:
            throw fail(.unsupportedMethod(header.method), skip: skip)
        }
    }

    /// Records a failure of the current member and returns its error.
    func fail(_ kind: ZipError.Kind, skip: UInt64?) -> ZipError {
        fail(kind, member: current?.member.name, at: current?.member.offset ?? window.offset, skip: skip)
    }

    /// Records a failure and returns its error.
    func fail(_ kind: ZipError.Kind, member: String?, at offset: Int, skip: UInt64?) -> ZipError {
        let error = ZipError(kind, member: member, offset: offset, canContinue: skip != nil)
        failure = Failure(error: error, skip: skip)
        current = nil
        return error
    }
}
