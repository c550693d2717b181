import Foundation
import JSONCore
import ReplayKit
import Testing

/// The system gzip failed.
struct GzipFailed: Error {
    let status: Int32
}

/// Gzips `path` into `path.gz` (or `to`) with the system gzip, keeping the original.
func gzipFile(_ path: String, to: String? = nil) throws -> String {
    let out = to ?? path + ".gz"
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", "gzip -c '\(path)' > '\(out)'"]
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw GzipFailed(status: p.terminationStatus) }
    return out
}

/// All lines of a source, copied.
func readAll(_ source: InputSource, resumeAt: ResumePoint? = nil, maxLineBytes: Int = 1 << 20) throws -> [(
    text: String, line: Int, start: UInt64, end: UInt64, truncated: Bool
)] {
    var out: [(String, Int, UInt64, UInt64, Bool)] = []
    let reader = try InputReader(source: source, resumeAt: resumeAt, maxLineBytes: maxLineBytes)
    try reader.forEachLine { l in
        out.append((String(decoding: l.bytes, as: UTF8.self), l.lineNumber, l.startOffset, l.endOffset, l.truncated))
        return true
    }
    return out
}

/// A config with `state_dir` in `dir` and optional YAML overrides appended.
func testConfig(_ yaml: String = "", stateDir: String = "/tmp/unused-state") throws -> ReplayConfig {
    var c = try ConfigLoader.load(text: yaml, file: "test.yaml", environment: [:])
    c.stateDir = stateDir
    return c
}

/// Enriches one line (see ``Enricher/process(_:lineNumber:sequence:)``).
func enrich(_ enricher: Enricher, _ line: String, lineNumber: Int = 1, sequence: UInt64 = 1) -> EnrichResult {
    let bytes = Array(line.utf8)
    return bytes.withUnsafeBufferPointer { enricher.process($0, lineNumber: lineNumber, sequence: sequence) }
}

/// An enriched event was expected.
struct NotAnEvent: Error, CustomStringConvertible {
    let description: String
    init(result: EnrichResult) { description = "expected an event, got \(result)" }
}

/// The event bytes parsed; throws (failing the test) for non-events.
func eventObject(_ result: EnrichResult) throws -> JSONObjectView {
    guard case .event(let event) = result else { throw NotAnEvent(result: result) }
    return try JSONObjectView(event.bytes)
}

/// The reason of a dead-lettered result.
func reason(_ result: EnrichResult) -> String? {
    if case .deadLetter(let r, _) = result { return r }
    return nil
}

/// The `messageId` of an enriched event (nil for other results or when it is not a string).
func messageId(of result: EnrichResult) -> String? {
    guard case .event(let event) = result, case .string(let m)? = try? JSONObjectView(event.bytes)["messageId"] else { return nil }
    return m
}

/// A parsed event for assertions.
struct JSONObjectView {
    let value: JSONValue
    init(_ bytes: [UInt8]) throws { value = try JSONValue(parsing: bytes) }
    subscript(_ path: String...) -> JSONValue? {
        var cur: JSONValue? = value
        for p in path { cur = cur?.objectValue?[p] }
        return cur
    }
}

/// The bytes of an enriched event (nil for other results).
func enrichedBytes(_ result: EnrichResult) -> [UInt8]? {
    guard case .event(let event) = result else { return nil }
    return event.bytes
}
