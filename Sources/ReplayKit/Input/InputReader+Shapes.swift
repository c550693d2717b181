import Foundation
import InputShapes
import JSONCore

/// How an input's bytes are compressed, recognized by their first bytes (not the file's name).
enum Compression: Equatable {
    case gzip, zstd, zip

    /// The compression `head` starts, or nil for plain content.
    init?(_ head: some Collection<UInt8>) {
        if head.starts(with: [0x1F, 0x8B]) {
            self = .gzip
        } else if head.starts(with: [0x28, 0xB5, 0x2F, 0xFD]) {
            self = .zstd
        } else if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            self = .zip
        } else {
            return nil
        }
    }

    /// `stream` decompressed; a zip archive's stream stays raw (its members are read one by one).
    func decompressing(_ stream: ByteStream, path: String) throws -> ByteStream {
        switch self {
        case .gzip, .zstd: try DecompressingStream(source: stream, path: path, format: self)
        case .zip: stream
        }
    }
}

/// How decompressed content is cut into records.
enum RecordShape: Equatable {
    /// One record per line (NDJSON).
    case lines
    /// The elements of one JSON array.
    case jsonArray
    /// CSV or TSV records, mapped to events.
    case csv(CSVDialect)
}

extension InputReader {
    /// The shape of content that starts with `head` (decompressed): `inputs.format` when set;
    /// else CSV or TSV by the name (`.csv`, `.tsv`, also before `.gz`, `.zst`, `.zip`); else a
    /// JSON array when the first byte that is not whitespace is `[`; else lines.
    func shape(plainHead head: some Collection<UInt8>, name: String? = nil) -> RecordShape {
        switch shaping.format {
        case .ndjson: return .lines
        case .jsonArray: return .jsonArray
        case .csv: return .csv(shaping.csv?.dialect ?? .csv)
        case .tsv: return .csv(shaping.csv?.dialect ?? .tsv)
        case .auto: break
        }
        var base = (name ?? source.path).lowercased()
        for suffix in [".gz", ".zst", ".zip"] where base.hasSuffix(suffix) { base.removeLast(suffix.count) }
        if base.hasSuffix(".csv") { return .csv(shaping.csv?.dialect ?? .csv) }
        if base.hasSuffix(".tsv") { return .csv(shaping.csv?.dialect ?? .tsv) }
        // The first byte that is neither JSON whitespace nor part of a UTF-8 byte order mark.
        let first = head.first { ![0x20, 0x0A, 0x0D, 0x09, 0xEF, 0xBB, 0xBF].contains($0) }
        return first == UInt8(ascii: "[") ? .jsonArray : .lines
    }

    /// Whether a plain input of `shape` can be read from its resume point by seeking (CSV needs
    /// its header, from the start).
    static func seeksToResume(plainHead: some Collection<UInt8>, shape: RecordShape) -> Bool {
        if case .csv = shape { return false }
        return true
    }

    /// Cuts the content into records as its shape says and hands each to `body`.
    func readRecords(_ stream: ByteStream, _ body: (InputLine) throws -> Bool) throws {
        if isZip { return try readZip(stream, body) }
        if let contentShape {
            // A plain input: its shape was seen at its start, before it was positioned.
            _ = try readRecords(stream, shape: contentShape, skip: pendingSkip, from: startPosition, body)
            return
        }
        let peek = PeekStream(stream)
        let head = try peek.peek(Self.sniffBytes)
        _ = try readRecords(peek, shape: shape(plainHead: head), skip: pendingSkip, from: startPosition, body)
    }

    /// Where reading starts: the resume point, or the content's start.
    var startPosition: LinePosition { LinePosition(offset: resumeAt?.offset ?? 0, line: resumeAt?.lineNumber ?? 1) }

    /// Reads `stream` as `shape`, skipping `skip` bytes first, numbered from `position`; returns
    /// where it ended, or nil when `body` asked to stop.
    func readRecords(
        _ stream: ByteStream, shape: RecordShape, skip: UInt64, from position: LinePosition, _ body: (InputLine) throws -> Bool
    ) throws -> LinePosition? {
        switch shape {
        case .lines: return try readLines(stream, skip: skip, from: position, body)
        case .jsonArray: return try readJSONArray(stream, skip: skip, from: position, body)
        case .csv(let dialect): return try readCSV(stream, dialect: dialect, from: position, body)
        }
    }
}

/// A stream whose first bytes can be looked at before they are read.
final class PeekStream: ByteStream {
    private let source: ByteStream
    private var held: [UInt8] = []
    private var heldStart = 0

    init(_ source: ByteStream) { self.source = source }

    var fileBytesRead: UInt64 { source.fileBytesRead }

    /// Up to `count` first bytes, which later reads still return.
    func peek(_ count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var n = 0
        while n < count {
            // `buffer` has `count` > n bytes, so the pointer + n and count - n stay inside it.
            let got = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0.baseAddress! + n, count: count - n) }
            if got == 0 { break }
            n += got
        }
        held = Array(buffer[0..<n])
        return held
    }

    func read(into: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard heldStart < held.count else { return try source.read(into: into, count: count) }
        let n = min(count, held.count - heldStart)
        // `held` has at least `n` bytes after `heldStart`; the caller's buffer has room for `count` >= n.
        held.withUnsafeBufferPointer { into.update(from: $0.baseAddress! + heldStart, count: n) }
        heldStart += n
        return n
    }
}
