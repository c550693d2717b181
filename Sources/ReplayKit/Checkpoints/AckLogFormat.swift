import Foundation
@_spi(PerLine) import MetaRouterDelivery

/// The acknowledgment log's records (``AckLog``): text, one per line, each ending in a space and
/// the low 32 bits of the FNV-1a 64 hash of what precedes it, in hex:
///
/// ```
/// d 0 {"path":"/data/a.ndjson","offset":0,"line":0,"completed":false,"fingerprint":{...}} 1f2e3d4c
/// l 0 1201,3,4+2,2 9a8b7c6d
/// m 1 "9F2C...-4B" 0a1b2c3d
/// ```
///
/// - `d K JSON` declares input `K` of this file: the input's checkpoint entry at its start (path,
///   and its file's fingerprint or its object's ETag), so a later run applies the lines only to
///   the same file or object.
/// - `l K ITEMS` lists acknowledged lines of input `K`, in increasing order: each item is the gap
///   from the previous item's last line (the first: from 0), then `+N` for N more consecutive
///   lines. With lines spread over four lanes, that is about two bytes a line.
/// - `m K "ID"` is the messageId of an acknowledged snapshot event (JSON string), for a snapshot
///   that is rewritten before the next run.
///
/// A reader stops at the first record that is cut short, fails its check or names an input the
/// file did not declare: what follows is ignored, which can only make a run send more again.
package enum AckLogFormat {
    /// What one file (or several, folded) says was acknowledged, by input path.
    package struct Acknowledged: Equatable {
        /// The input's checkpoint entry at its start (its identity), from the newest declaration.
        package var declaration: InputCheckpoint
        /// Acknowledged line numbers, in no particular order, possibly repeated.
        package var lines: [Int] = []
        /// Acknowledged snapshot messageIds.
        package var messageIds: [String] = []
    }

    /// The declaration record's JSON for `input`, or nil when its file cannot be fingerprinted.
    static func declaration(of input: AckLog.Input) -> [UInt8]? {
        let entry: InputCheckpoint
        if let partitioned = input.partitionIdentity {
            entry = partitioned
        } else if let object = input.object {
            entry = InputCheckpoint(object: object, offset: 0, line: 0, completed: false)
        } else {
            guard let fingerprint = try? FileFingerprint.make(path: input.path, offset: 0, plain: false) else { return nil }
            entry = InputCheckpoint(path: input.path, offset: 0, line: 0, completed: false, fingerprint: fingerprint)
        }
        return (try? encoder.encode(entry)).map { [UInt8]($0) }
    }

    private static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    /// Appends a declaration record.
    static func appendDeclaration(input: Int, json: [UInt8], to out: inout [UInt8]) {
        let start = out.count
        out.append(UInt8(ascii: "d"))
        appendInput(input, to: &out)
        out.append(contentsOf: json)
        finish(from: start, &out)
    }

    /// Appends a lines record; `lines` must be strictly increasing and positive.
    package static func appendLines<S: Sequence>(input: Int, lines: S, to out: inout [UInt8]) where S.Element == Int {
        let start = out.count
        out.append(UInt8(ascii: "l"))
        appendInput(input, to: &out)
        var previous = 0
        var runStart = 0, runLength = 0  // the run of consecutive lines being collected
        var first = true
        func flushRun() {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            appendDecimal(runStart - previous, to: &out)
            if runLength > 1 {
                out.append(UInt8(ascii: "+"))
                appendDecimal(runLength - 1, to: &out)
            }
            previous = runStart + runLength - 1
        }
        for line in lines {
            if runLength > 0, line == runStart + runLength {
                runLength += 1
                continue
            }
            if runLength > 0 { flushRun() }
            runStart = line
            runLength = 1
        }
        if runLength > 0 { flushRun() }
        finish(from: start, &out)
    }

    /// Appends a messageId record.
    static func appendMessageId(input: Int, id: String, to out: inout [UInt8]) {
        let start = out.count
        out.append(UInt8(ascii: "m"))
        appendInput(input, to: &out)
        out.append(contentsOf: (try? JSONEncoder().encode(id)) ?? Data("\"\"".utf8))
        finish(from: start, &out)
    }

    private static func appendInput(_ input: Int, to out: inout [UInt8]) {
        out.append(UInt8(ascii: " "))
        appendDecimal(input, to: &out)
        out.append(UInt8(ascii: " "))
    }

    private static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        out.append(contentsOf: String(value).utf8)
    }

    /// Ends the record that starts at `start`: its check and a newline.
    private static func finish(from start: Int, _ out: inout [UInt8]) {
        let check = checksum(out[start...])
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: check)
        out.append(0x0A)
    }

    /// The 8 hex digits of a record's body.
    static func checksum<C: Collection>(_ body: C) -> [UInt8] where C.Element == UInt8 {
        let low = UInt32(truncatingIfNeeded: FNV1a.hash(body))
        let hex = Array("0123456789abcdef".utf8)
        return (0..<8).map { hex[Int((low >> (28 - 4 * UInt32($0))) & 0xF)] }
    }

    /// Reads one file's records, by input path, up to the first bad one.
    package static func parse(_ bytes: [UInt8]) -> [String: Acknowledged] {
        var result: [String: Acknowledged] = [:]
        var paths: [Int: String] = [:]  // this file's input numbers
        var start = 0
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            let record = bytes[start..<newline]
            start = newline + 1
            guard record.count > 13, let body = verified(record), let (kind, input, rest) = split(body) else { break }
            if kind == UInt8(ascii: "d") {
                guard let entry = try? JSONDecoder().decode(InputCheckpoint.self, from: Data(rest)) else { break }
                paths[input] = entry.path
                // A declaration of another file at the same path starts over; of the same file
                // (a later generation's), it keeps what was listed.
                if let previous = result[entry.path], sameInput(previous.declaration, entry) { continue }
                result[entry.path] = Acknowledged(declaration: entry)
                continue
            }
            guard let path = paths[input] else { break }
            if kind == UInt8(ascii: "l") {
                guard let lines = decodeLines(rest) else { break }
                result[path]!.lines += lines
            } else if kind == UInt8(ascii: "m") {
                guard let id = try? JSONDecoder().decode(String.self, from: Data(rest)) else { break }
                result[path]!.messageIds.append(id)
            } else {
                break
            }
        }
        return result
    }

    /// Whether two declarations name the same file or object as far as they can tell: the same
    /// ETag, or the same fingerprint of the same head length.
    static func sameInput(_ a: InputCheckpoint, _ b: InputCheckpoint) -> Bool {
        if a.isObject || b.isObject { return a.etag == b.etag && a.etag != nil }
        return a.fingerprint.headLength == b.fingerprint.headLength && a.fingerprint.headHash == b.fingerprint.headHash
    }

    /// The record's body when its check matches.
    private static func verified(_ record: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let body = record[record.startIndex..<(record.endIndex - 9)]
        guard record[record.endIndex - 9] == UInt8(ascii: " "), Array(record[(record.endIndex - 8)...]) == checksum(body) else {
            return nil
        }
        return body
    }

    /// A body's kind, input number and the rest.
    private static func split(_ body: ArraySlice<UInt8>) -> (UInt8, Int, ArraySlice<UInt8>)? {
        guard body.count >= 4, body[body.startIndex + 1] == UInt8(ascii: " ") else { return nil }
        let numberStart = body.startIndex + 2
        guard let space = body[numberStart...].firstIndex(of: UInt8(ascii: " ")),
            let input = Int(String(decoding: body[numberStart..<space], as: UTF8.self)), input >= 0
        else { return nil }
        return (body[body.startIndex], input, body[(space + 1)...])
    }

    /// The lines of a lines record's items, or nil when they are malformed.
    package static func decodeLines(_ items: ArraySlice<UInt8>) -> [Int]? {
        var lines: [Int] = []
        var previous = 0
        for item in items.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let parts = item.split(separator: UInt8(ascii: "+"), omittingEmptySubsequences: false)
            guard parts.count <= 2, let gap = decimal(parts[0]), gap > 0 else { return nil }
            let extra = parts.count == 2 ? decimal(parts[1]) : 0
            guard let extra, extra >= 0 else { return nil }
            let first = previous + gap
            guard first > 0, extra < 10_000_000 else { return nil }
            lines.append(contentsOf: first...(first + extra))
            previous = first + extra
        }
        return lines
    }

    private static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}
