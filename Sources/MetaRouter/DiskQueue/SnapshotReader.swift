import JSONCore

/// Finds the `version` and the raw bytes of each element of `events` in a snapshot, tolerating
/// damage: an element that does not scan is counted as corrupt, and the first element that
/// cannot be delimited ends the list (the file was cut short), keeping what came before.
public enum SnapshotReader {
    /// The raw pieces of a snapshot.
    public struct Elements: Sendable {
        /// The `version` member, if it was an integer.
        public var version: Int?
        /// Each event's bytes, in order.
        public var events: [ArraySlice<UInt8>]
        /// Elements that could not be read.
        public var corrupt: Int
    }

    /// Splits `bytes` into the snapshot's parts.
    public static func elements(_ bytes: [UInt8]) -> Elements {
        bytes.withUnsafeBufferPointer { buffer in
            var result = Elements(version: nil, events: [], corrupt: 0)
            // Fast path: the whole file is valid.
            if let layout = try? ObjectLayout.scanDocument(buffer) {
                if let v = layout.member("version", in: buffer), v.kind == .number {
                    result.version = Int(String(decoding: UnsafeBufferPointer(rebasing: buffer[v.value]), as: UTF8.self))
                }
                if let events = layout.member("events", in: buffer), events.kind == .array {
                    result.events = arrayElements(buffer, events.value).map { bytes[$0] }
                }
                return result
            }
            // Damaged file: find the version and walk the events array element by element.
            result.version = findVersion(bytes)
            guard let start = findEventsArray(bytes) else { return result }
            var s = JSONScanner(buffer)
            s.seek(to: start + 1)
            while true {
                s.skipWhitespace()
                guard s.offset < buffer.count else { break }
                if buffer[s.offset] == UInt8(ascii: "]") { break }
                let elementStart = s.offset
                do {
                    let kind = try s.scanValue()
                    if kind == .object { result.events.append(bytes[elementStart..<s.offset]) } else { result.corrupt += 1 }
                } catch {
                    // Skip to the next element boundary at depth 0, if any.
                    guard let next = nextTopLevelComma(buffer, from: elementStart) else {
                        result.corrupt += 1
                        break
                    }
                    result.corrupt += 1
                    s.seek(to: next)
                }
                s.skipWhitespace()
                if s.offset < buffer.count, buffer[s.offset] == UInt8(ascii: ",") { s.seek(to: s.offset + 1) } else { break }
            }
            return result
        }
    }

    static func arrayElements(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var s = JSONScanner(UnsafeBufferPointer(rebasing: buffer[..<range.upperBound]))
        s.seek(to: range.lowerBound + 1)
        while true {
            s.skipWhitespace()
            guard s.offset < range.upperBound, buffer[s.offset] != UInt8(ascii: "]") else { return out }
            let start = s.offset
            guard (try? s.scanValue()) != nil else { return out }
            out.append(start..<s.offset)
            s.skipWhitespace()
            guard s.offset < range.upperBound, buffer[s.offset] == UInt8(ascii: ",") else { return out }
            s.seek(to: s.offset + 1)
        }
    }

    static func findVersion(_ bytes: [UInt8]) -> Int? {
        guard let r = find(Array("\"version\"".utf8), in: bytes) else { return nil }
        var k = r
        while k < bytes.count, bytes[k] == UInt8(ascii: ":") || bytes[k] == 0x20 { k += 1 }
        var digits = ""
        while k < bytes.count, bytes[k] >= 48, bytes[k] <= 57 {
            digits.append(Character(Unicode.Scalar(bytes[k])))
            k += 1
        }
        return Int(digits)
    }

    static func findEventsArray(_ bytes: [UInt8]) -> Int? {
        guard var k = find(Array("\"events\"".utf8), in: bytes) else { return nil }
        while k < bytes.count, bytes[k] != UInt8(ascii: "[") {
            guard bytes[k] == UInt8(ascii: ":") || bytes[k] == 0x20 || bytes[k] == 0x0A || bytes[k] == 0x0D || bytes[k] == 0x09
            else { return nil }
            k += 1
        }
        return k < bytes.count ? k : nil
    }

    /// Offset just after the needle's first occurrence.
    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        for k in 0...(bytes.count - needle.count) where bytes[k] == needle[0] {
            if bytes[k..<k + needle.count].elementsEqual(needle) { return k + needle.count }
        }
        return nil
    }

    /// The offset of the next `,` at nesting depth 0 (outside strings) after `from`.
    static func nextTopLevelComma(_ buffer: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var depth = 0
        var inString = false
        var k = from
        while k < buffer.count {
            let c = buffer[k]
            if inString {
                if c == UInt8(ascii: "\\") { k += 1 } else if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                depth += 1
            } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                if depth == 0 { return nil }
                depth -= 1
            } else if c == UInt8(ascii: ","), depth == 0 {
                return k
            }
            k += 1
        }
        return nil
    }
}
