import Foundation
import XCTest
@testable import ReplayKit

/// A fresh temporary directory, removed by the caller's tearDown.
func makeTempDir() throws -> String {
    let dir = NSTemporaryDirectory() + "replaykit-" + UUID().uuidString.lowercased()
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Writes `text` to `path`.
func writeFile(_ path: String, _ text: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

/// Gzips `path` into `path.gz` (or `to`) with the system gzip, keeping the original.
func gzipFile(_ path: String, to: String? = nil) throws -> String {
    let out = to ?? path + ".gz"
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", "gzip -c '\(path)' > '\(out)'"]
    try p.run()
    p.waitUntilExit()
    XCTAssertEqual(p.terminationStatus, 0)
    return out
}

/// All lines of a source, copied.
func readAll(_ source: InputSource, resumeAt: ResumePoint? = nil, maxLineBytes: Int = 1 << 20) throws -> [(text: String, line: Int, start: UInt64, end: UInt64, truncated: Bool)] {
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

/// Enriches one line.
func enrich(_ enricher: Enricher, _ line: String, lineNumber: Int = 1, sequence: UInt64 = 1) -> EnrichResult {
    var bytes = Array(line.utf8)
    return bytes.withUnsafeMutableBufferPointer {
        enricher.process(UnsafeBufferPointer($0), lineNumber: lineNumber, sequence: sequence)
    }
}

/// The event bytes parsed, failing the test for non-events.
func eventObject(_ result: EnrichResult, file: StaticString = #filePath, line: UInt = #line) throws -> JSONObjectView {
    guard case .event(let bytes, _) = result else {
        XCTFail("expected an event, got \(result)", file: file, line: line)
        throw CancellationError()
    }
    return try JSONObjectView(bytes)
}

/// The reason of a dead-lettered result.
func reason(_ result: EnrichResult) -> String? {
    if case .deadLetter(let r, _) = result { return r }
    return nil
}

import JSONCore

/// The `messageId` of an enriched event (nil for other results or when it is not a string).
func messageId(of result: EnrichResult) -> String? {
    guard case .event(let bytes, _) = result, case .string(let m)? = try? JSONObjectView(bytes)["messageId"] else { return nil }
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
