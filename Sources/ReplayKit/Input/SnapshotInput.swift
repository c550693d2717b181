import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
@_spi(PerLine) import MetaRouterDelivery

/// A MetaRouter SDK offline snapshot as an input of mr-replay: each element of `events` is one
/// "line" (line number = index + 1, offsets = the element's bytes in the file).
///
/// The file is streamed through MetaRouter's ``SnapshotReader``. A damaged file gives back every
/// event that is complete before its break, and then the rest of the file, from the break to
/// its end, as one final line marked with ``InputLine/damage``: it is dead-lettered whole.
enum SnapshotInput {
    /// File names the SDK gives its snapshots.
    static let names = ["queue.v1.json", "overflow.v1.json"]

    /// Whether `name` (a file name, possibly with `.gz`) is one the SDK gives a snapshot.
    static func hasSnapshotName(_ name: String) -> Bool {
        let plain = name.hasSuffix(".gz") ? String(name.dropLast(3)) : name
        return names.contains { plain == $0 || plain.hasSuffix("." + $0) || plain.hasSuffix("-" + $0) }
    }

    /// Whether the `.json` file at `path` is a snapshot: an object whose first member is
    /// `version` or `events` (the SDK writes them in either order), with nothing after it. A file
    /// cut short is one too (a damaged snapshot); NDJSON whose first line looks like one is not.
    static func looksLikeSnapshot(path: String) -> Bool {
        guard startsLikeSnapshot(path: path) else { return false }
        return (try? isWholeSnapshot(InputSource(path: path, kind: .snapshot))) ?? false
    }

    /// Whether `input` (an S3 object that starts like a snapshot) is one as a whole: walked to
    /// its end, with nothing after the object. Its store's failures are thrown.
    static func isWholeSnapshot(_ input: InputSource) throws -> Bool {
        var whole = false
        try InputFailure.passingOn {
            let stream = try InputReader(source: input.with(kind: .snapshot)).openStream()
            var snapshot = SnapshotReader(source: stream.rawSource)
            whole = try !snapshot.walk(onEvent: { _ in true }).hasTrailingContent
        }
        return whole
    }

    /// Whether the head of the file at `path` is `{` and a first member `version` or `events`.
    static func startsLikeSnapshot(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 256) else { return false }
        return startsLikeSnapshot(head: [UInt8](head))
    }

    /// Whether `head` (an input's first bytes) is `{` and a first member `version` or `events`.
    static func startsLikeSnapshot(head: [UInt8]) -> Bool {
        var k = head.startIndex
        func skip() { while k < head.endIndex, head[k].isJSONWhitespace { k += 1 } }
        skip()
        guard k < head.endIndex, head[k] == UInt8(ascii: "{") else { return false }
        k += 1
        skip()
        let rest = head[k...]
        return rest.starts(with: Array("\"version\"".utf8)) || rest.starts(with: Array("\"events\"".utf8))
    }

    /// Hands each event of the snapshot in `stream` to `body`, from `reader.resumeAt` on.
    static func read(stream: ByteStream, reader: InputReader, _ body: (InputLine) throws -> Bool) throws {
        let firstLine = reader.resumeAt?.lineNumber ?? 1
        var snapshot = SnapshotReader(source: stream.rawSource)
        var tail: [UInt8] = []
        var stopped = false
        let summary = try snapshot.walk(
            onEvent: { element in
                guard element.index + 1 >= firstLine else { return true }
                let line = InputLine(
                    bytes: element.bytes, lineNumber: element.index + 1, startOffset: element.startOffset,
                    endOffset: element.endOffset, truncated: false, fileBytesRead: stream.fileBytesRead,
                    fileSize: reader.fileSize)
                if try body(line) { return true }
                stopped = true
                return false
            },
            onTail: { tail.append(contentsOf: $0) })
        if stopped { return }
        if let why = summary.unsupportedReason {
            throw InputError("\(reader.source.path): cannot be replayed: \(why)")
        }
        guard let breakOffset = summary.breakOffset, !tail.isEmpty, summary.elements + 1 >= firstLine,
            reader.resumeAt?.damagedTailSettled != true
        else { return }
        try tail.withUnsafeBufferPointer { bytes in
            var line = InputLine(
                bytes: bytes, lineNumber: summary.elements + 1, startOffset: breakOffset,
                endOffset: breakOffset + UInt64(bytes.count), truncated: false, fileBytesRead: stream.fileBytesRead,
                fileSize: reader.fileSize)
            line.damage =
                "the snapshot is damaged at byte \(breakOffset) (\(summary.breakReason ?? "unreadable")): "
                + "the \(bytes.count) bytes from there to the end of the file"
            _ = try body(line)
        }
    }
}

extension ByteStream {
    /// The stream as a ``SnapshotReader`` source.
    var rawSource: (UnsafeMutableRawBufferPointer) throws -> Int {
        { buffer in
            guard let start = buffer.baseAddress, buffer.count > 0 else { return 0 }
            // SnapshotReader hands out the bytes of a `[UInt8]` (its read buffer), memory that is
            // bound to UInt8, so viewing it as UInt8 is the binding it already has.
            return try self.read(into: start.assumingMemoryBound(to: UInt8.self), count: buffer.count)
        }
    }
}
