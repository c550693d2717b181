import Foundation
import InputShapes

extension InputReader {
    /// A zip archive's members, in archive order, streamed (their local headers, no central
    /// directory needed). Each member's content is recognized as an input's is: gzip or zstd
    /// inside, then lines, a JSON array or CSV (by its name). Lines are numbered, and offsets
    /// counted, across the members as if they were one stream; each line names its member.
    ///
    /// A resumed archive is read from its start (members are compressed): records before the
    /// resume point are read and not handed over. A damaged member whose end the archive shows
    /// is one refused line (`damaged_member`) and the next member is read; one whose end is
    /// unknown ends the input (a read error for the rest).
    func readZip(_ archive: ByteStream, _ body: (InputLine) throws -> Bool) throws {
        let zip = ZipReader()
        let pull: PullBytes = { room in
            // Safe: `room` is the zip reader's own buffer of plain bytes, only ever accessed as
            // UInt8, and `archive` writes at most its count.
            try archive.read(into: room.bindMemory(to: UInt8.self).baseAddress!, count: room.count)
        }
        let resume = resumeAt.map { UInt64($0.offset) } ?? 0
        var base = LinePosition(offset: 0, line: 1)
        while true {
            let member: ZipMember?
            do {
                member = try zip.nextMember(pull: pull)
            } catch let error as ZipError {
                guard try zipDamage(error, at: &base, archive, body) else { return }
                continue
            }
            guard let member, let end = try readMember(member, zip, pull, base: base, resume: resume, archive, body) else { return }
            base = end
        }
    }

    /// Reads one member's records; returns where the next member's numbering starts, or nil when
    /// `body` asked to stop or the archive cannot be read further.
    private func readMember(
        _ member: ZipMember, _ zip: ZipReader, _ pull: @escaping PullBytes, base: LinePosition, resume: UInt64,
        _ archive: ByteStream, _ body: (InputLine) throws -> Bool
    ) throws -> LinePosition? {
        let content = CountingStream(ZipMemberStream(zip, pull, archive: archive))
        var nextLine = base.line  // after the member's lines read so far
        do {
            let raw = PeekStream(content.source)
            let compression = Compression(try raw.peek(Self.sniffBytes))
            let decompressed = PeekStream(
                try compression.map { $0 == .zip ? raw : try $0.decompressing(raw, path: "\(source.path) (\(member.name))") } ?? raw)
            content.source = decompressed
            let shape = shape(plainHead: try decompressed.peek(Self.sniffBytes), name: member.name)
            let end = try readRecords(content, shape: shape, skip: 0, from: LinePosition(offset: 0, line: 1)) { line in
                var absolute = line.rebased(on: base)
                nextLine = absolute.lineNumber + (absolute.endsLine ? 1 : 0)
                guard absolute.endOffset > resume else { return true }
                absolute.member = member.name
                return try body(absolute)
            }
            guard let end else { return nil }
            return LinePosition(offset: base.offset + content.count, line: base.line + end.line - 1)
        } catch let error as ZipError {
            var position = LinePosition(offset: base.offset + content.count, line: nextLine)
            return try zipDamage(error, at: &position, archive, body) ? position : nil
        }
    }

    /// Hands over a damaged member as one refused line, or, when the archive cannot be read past
    /// it, throws a read error naming it. Returns false when `body` asked to stop.
    private func zipDamage(
        _ error: ZipError, at position: inout LinePosition, _ archive: ByteStream, _ body: (InputLine) throws -> Bool
    ) throws -> Bool {
        guard error.canContinue else { throw InputError("\(source.path): \(error)") }  // the error names the member
        let line = InputLine(
            bytes: UnsafeBufferPointer(start: nil, count: 0), lineNumber: position.line, startOffset: position.offset,
            endOffset: position.offset, truncated: false, fileBytesRead: archive.fileBytesRead, fileSize: fileSize)
        position.line += 1
        return try body(line.refused(reason: DeadLetterReason.damagedMember, detail: "\(error)"))
    }
}

extension InputLine {
    /// The line numbered and placed in a larger stream whose part it is, which starts at `base`.
    func rebased(on base: LinePosition) -> InputLine {
        var line = InputLine(
            bytes: bytes, lineNumber: base.line + lineNumber - 1, startOffset: base.offset + startOffset,
            endOffset: base.offset + endOffset, truncated: truncated, fileBytesRead: fileBytesRead, fileSize: fileSize)
        (line.refusal, line.skip, line.endsLine, line.damage) = (refusal, skip, endsLine, damage)
        return line
    }
}

/// The decompressed bytes of the current member of a zip archive.
final class ZipMemberStream: ByteStream {
    private let zip: ZipReader
    private let pull: PullBytes
    private let archive: ByteStream

    init(_ zip: ZipReader, _ pull: @escaping PullBytes, archive: ByteStream) {
        self.zip = zip
        self.pull = pull
        self.archive = archive
    }

    var fileBytesRead: UInt64 { archive.fileBytesRead }

    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        try zip.read(into: UnsafeMutableRawBufferPointer(start: into, count: count), pull: pull)
    }
}

/// A stream that counts the bytes read through it (a member's length, once read to its end).
final class CountingStream: ByteStream {
    var source: ByteStream
    private(set) var count: UInt64 = 0

    init(_ source: ByteStream) { self.source = source }

    var fileBytesRead: UInt64 { source.fileBytesRead }

    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        let n = try source.read(into: into, count: count)
        self.count += UInt64(n)
        return n
    }
}
