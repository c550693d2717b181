import Foundation
import JSONCore
@_spi(PerLine) import MetaRouterDelivery
import SystemIO

/// Appends rejected lines to `<state_dir>/dead-letter.ndjson`, one JSON object per line:
/// `{"reason":..,"detail":..,"source":..,"line":N,"raw":..}` — `raw_base64` instead of `raw`
/// when the original bytes are not valid UTF-8. Bytes over ``maximumInlineBytes`` (the rest of
/// a large damaged snapshot) are never cut: they are written whole to a side file in
/// `dead-letter-raw/` next to the dead-letter file, and the record names it (`raw_file`,
/// `raw_bytes`) instead of holding them.
///
/// With `maxBytes`, the file is rotated before a record would take it past that size: it is
/// renamed to `dead-letter.N.ndjson` (``DeadLetterFiles``) and a new one is started. Records are
/// never split, and the buffered ones are written before the rename.
package final class DeadLetterWriter {
    /// The file written to.
    package let path: String
    private var file: AppendOnlyFile
    private var buffer: [UInt8] = []
    /// Rotate before the file would pass this many bytes (0: never).
    private let maxBytes: UInt64
    /// Files rotated by this writer.
    package private(set) var rotations = 0
    /// Records written so far by this writer.
    package private(set) var count = 0
    /// The most bytes a record holds itself.
    static let maximumInlineBytes = 1 << 20
    /// Where bytes too large for a record go.
    var sideDirectory: String { (path as NSString).deletingLastPathComponent + "/dead-letter-raw" }

    /// Opens `path` for appending (creating it and its directory); `maxBytes` > 0 rotates it by size.
    package init(path: String, maxBytes: Int = 0) throws {
        self.path = path
        self.maxBytes = UInt64(max(maxBytes, 0))
        file = try Self.open(path)
    }

    /// Opens `path` for appending, creating it and its directory.
    private static func open(_ path: String) throws -> AppendOnlyFile {
        do {
            return try AppendOnlyFile(path: path, createDirectory: true)
        } catch {
            throw InputError("the dead-letter file: \(error)")
        }
    }

    /// Rotates the file when `bytes` more would take it past ``maxBytes`` (and it holds any).
    private func rotateIfNeeded(adding bytes: Int) throws {
        let held = file.size + UInt64(buffer.count)
        guard maxBytes > 0, held > 0, held + UInt64(bytes) > maxBytes else { return }
        try flush()
        try file.close()
        let files = DeadLetterFiles(path: path)
        let rotated = files.rotatedPath(files.nextRotationNumber())
        guard rename(path, rotated) == 0 else {
            let why = String(cString: strerror(errno))
            file = try Self.open(path)  // keep appending to the full file rather than losing records
            throw InputError("\(path): cannot rotate the dead-letter file to \(rotated): \(why)")
        }
        file = try Self.open(path)
        rotations += 1
    }

    deinit { try? flush() }

    /// Encodes one dead-letter record as JSON (no newline).
    package static func record(reason: String, detail: String, source: String, line: Int, raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count + 128)
        out.append(contentsOf: Array("{\"reason\":".utf8))
        JSONStrings.appendQuoted(reason, to: &out)
        out.append(contentsOf: Array(",\"detail\":".utf8))
        JSONStrings.appendQuoted(detail, to: &out)
        out.append(contentsOf: Array(",\"source\":".utf8))
        JSONStrings.appendQuoted(source, to: &out)
        out.append(contentsOf: Array(",\"line\":\(line),".utf8))
        if UTF8Check.isValid(raw) {
            out.append(contentsOf: Array("\"raw\":\"".utf8))
            JSONStrings.appendEscaped(raw, to: &out)
            out.append(UInt8(ascii: "\""))
        } else {
            out.append(contentsOf: Array("\"raw_base64\":\"".utf8))
            out.append(contentsOf: Array(Data(raw).base64EncodedString().utf8))
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Appends one record (buffered; see ``flush()``). Bytes over ``maximumInlineBytes`` are
    /// written to their side file at once, before the record that names them.
    package func write(reason: String, detail: String, source: String, line: Int, raw: UnsafeBufferPointer<UInt8>) throws {
        guard raw.count <= Self.maximumInlineBytes else {
            return try writeAside(reason: reason, detail: detail, source: source, line: line, raw: raw)
        }
        let record = Self.record(reason: reason, detail: detail, source: source, line: line, raw: raw)
        try rotateIfNeeded(adding: record.count + 1)
        buffer.append(contentsOf: record)
        buffer.append(0x0A)
        count += 1
        if buffer.count >= 1 << 20 { try flush() }
    }

    private func writeAside(reason: String, detail: String, source: String, line: Int, raw: UnsafeBufferPointer<UInt8>) throws {
        try FileManager.default.createDirectory(atPath: sideDirectory, withIntermediateDirectories: true)
        let name = "\(Int64(Date().timeIntervalSince1970 * 1000))-\(UUID().uuidString.lowercased().prefix(8))-line\(line).raw"
        let side = sideDirectory + "/" + name
        try LocalFileSystem().writeAtomically(side, Array(raw))
        var out = Array("{\"reason\":".utf8)
        JSONStrings.appendQuoted(reason, to: &out)
        out += Array(",\"detail\":".utf8)
        JSONStrings.appendQuoted(detail, to: &out)
        out += Array(",\"source\":".utf8)
        JSONStrings.appendQuoted(source, to: &out)
        out += Array(",\"line\":\(line),\"raw_bytes\":\(raw.count),\"raw_file\":".utf8)
        JSONStrings.appendQuoted(side, to: &out)
        try rotateIfNeeded(adding: out.count + 2)
        buffer.append(contentsOf: out + [UInt8(ascii: "}"), 0x0A])
        count += 1
        try flush()
    }

    /// Appends one record from an array of bytes.
    package func write(reason: String, detail: String, source: String, line: Int, raw: [UInt8]) throws {
        try raw.withUnsafeBufferPointer { try write(reason: reason, detail: detail, source: source, line: line, raw: $0) }
    }

    /// Writes buffered records to the file.
    package func flush() throws {
        guard !buffer.isEmpty else { return }
        try file.append(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the file.
    package func close() throws {
        try flush()
        try file.close()
    }
}

/// UTF-8 validation of raw bytes.
enum UTF8Check {
    /// Whether `bytes` is well-formed UTF-8.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            if c < 0x80 { i += 1; continue }
            let len: Int
            let minScalar: UInt32
            var scalar: UInt32
            if c & 0xE0 == 0xC0 {
                len = 2; scalar = UInt32(c & 0x1F); minScalar = 0x80
            } else if c & 0xF0 == 0xE0 {
                len = 3; scalar = UInt32(c & 0x0F); minScalar = 0x800
            } else if c & 0xF8 == 0xF0 {
                len = 4; scalar = UInt32(c & 0x07); minScalar = 0x10000
            } else {
                return false
            }
            guard i + len <= n else { return false }
            for k in 1..<len {
                let d = bytes[i + k]
                guard d & 0xC0 == 0x80 else { return false }
                scalar = scalar << 6 | UInt32(d & 0x3F)
            }
            if scalar < minScalar || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return false }
            i += len
        }
        return true
    }
}
