import Foundation
import JSONCore

/// Reads MetaRouter SDK offline snapshots: `{"version":1,"events":[{...},...]}` (`queue.v1.json`).
///
/// Each event is handed over as one "line" (line number = index + 1, offsets = the event's byte
/// range in the file). An unknown `version` yields nothing. A corrupt event does not lose the
/// file: valid events are replayed and the enricher dead-letters the bad one. When the array
/// itself is broken, the events before the break are replayed and the rest is handed over as one
/// final bad line.
enum SnapshotReader {
    /// Snapshot files are small (the SDK caps them at `maxDiskEvents`); refuse absurd sizes.
    static let maximumBytes = 512 << 20

    /// Whether the file at `path` (plain JSON) is a single object with `version` and an `events` array.
    static func looksLikeSnapshot(path: String) -> Bool {
        guard let attrs = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attrs[.size] as? Int, size > 0, size <= 64 << 20,
            let data = FileManager.default.contents(atPath: path)
        else { return false }
        let bytes = [UInt8](data)
        return bytes.withUnsafeBufferPointer { buf in
            guard let layout = try? ObjectLayout.scanDocument(buf) else { return false }
            guard let events = layout.member("events", in: buf), events.kind == .array else { return false }
            return layout.member("version", in: buf) != nil
        }
    }

    /// The byte ranges of the events, or nil when the version is not 1.
    struct Parsed {
        var events: [Range<Int>] = []
        var brokenTail: Range<Int>?
    }

    static func read(stream: ByteStream, reader: InputReader, _ body: (InputLine) throws -> Bool) throws {
        var bytes: [UInt8] = []
        let chunk = 256 * 1024
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk)
        defer { scratch.deallocate() }
        while true {
            let n = try stream.read(into: scratch, count: chunk)
            if n == 0 { break }
            bytes.append(contentsOf: UnsafeBufferPointer(start: scratch, count: n))
            guard bytes.count <= maximumBytes else {
                throw InputError("\(reader.source.path): snapshot larger than \(maximumBytes) bytes")
            }
        }
        let firstLine = reader.resumeAt?.lineNumber ?? 1
        try bytes.withUnsafeBufferPointer { buf in
            let parsed = parse(buf)
            var lines = parsed.events
            if let tail = parsed.brokenTail { lines.append(tail) }
            for (index, range) in lines.enumerated() where index + 1 >= firstLine {
                let line = InputLine(
                    bytes: UnsafeBufferPointer(rebasing: buf[range]), lineNumber: index + 1,
                    startOffset: UInt64(range.lowerBound), endOffset: UInt64(range.upperBound),
                    truncated: false, fileBytesRead: stream.fileBytesRead, fileSize: reader.fileSize)
                if try !body(line) { return }
            }
        }
    }

    /// Finds the events of a version-1 snapshot in `buf`.
    static func parse(_ buf: UnsafeBufferPointer<UInt8>) -> Parsed {
        if let layout = try? ObjectLayout.scanDocument(buf) {
            guard let version = layout.member("version", in: buf), version.kind == .number,
                isOne(buf, version.value),
                let events = layout.member("events", in: buf), events.kind == .array
            else { return Parsed() }
            return walk(buf, from: events.value.lowerBound + 1)
        }
        // The document is broken: look for the header textually and replay what can be read.
        guard let v = find(buf, "\"version\""), let colon = skipWS(buf, v), colon < buf.count, buf[colon] == UInt8(ascii: ":"),
            let num = skipWS(buf, colon + 1), num < buf.count, buf[num] == UInt8(ascii: "1"),
            num + 1 >= buf.count || !(48...57).contains(buf[num + 1]) && buf[num + 1] != UInt8(ascii: ".")
        else {
            // Not recognisable at all: hand the whole file over as one bad line.
            return Parsed(events: [], brokenTail: buf.isEmpty ? nil : 0..<buf.count)
        }
        guard let e = find(buf, "\"events\""), let c = skipWS(buf, e), c < buf.count, buf[c] == UInt8(ascii: ":"),
            let open = skipWS(buf, c + 1), open < buf.count, buf[open] == UInt8(ascii: "[")
        else { return Parsed(events: [], brokenTail: 0..<buf.count) }
        return walk(buf, from: open + 1)
    }

    private static func walk(_ buf: UnsafeBufferPointer<UInt8>, from: Int) -> Parsed {
        var out = Parsed()
        var p = from
        while true {
            guard let s = skipWS(buf, p), s < buf.count else { return out }
            if buf[s] == UInt8(ascii: "]") { return out }
            let sub = UnsafeBufferPointer(rebasing: buf[s...])
            var scanner = JSONScanner(sub)
            do {
                _ = try scanner.scanValue()
            } catch {
                out.brokenTail = s..<buf.count
                return out
            }
            let end = s + scanner.offset
            out.events.append(s..<end)
            guard let n = skipWS(buf, end), n < buf.count else { return out }
            if buf[n] == UInt8(ascii: ",") {
                p = n + 1
            } else {
                if buf[n] != UInt8(ascii: "]") { out.brokenTail = n..<buf.count }
                return out
            }
        }
    }

    private static func isOne(_ buf: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Bool {
        let text = String(decoding: UnsafeBufferPointer(rebasing: buf[r]), as: UTF8.self)
        return Double(text) == 1
    }

    private static func skipWS(_ buf: UnsafeBufferPointer<UInt8>, _ from: Int) -> Int? {
        var p = from
        while p < buf.count, buf[p] == 0x20 || buf[p] == 0x0A || buf[p] == 0x0D || buf[p] == 0x09 { p += 1 }
        return p
    }

    /// Offset just after the first occurrence of `needle`.
    private static func find(_ buf: UnsafeBufferPointer<UInt8>, _ needle: String) -> Int? {
        let n = Array(needle.utf8)
        guard buf.count >= n.count else { return nil }
        var i = 0
        while i + n.count <= buf.count {
            if buf[i] == n[0], (0..<n.count).allSatisfy({ buf[i + $0] == n[$0] }) { return i + n.count }
            i += 1
        }
        return nil
    }
}
