import Foundation
import XCTest
@testable import ReplayKit

final class InputTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testLinesOffsetsAndFinalLineWithoutNewline() throws {
        try writeFile(dir + "/a.ndjson", "{\"a\":1}\n\n  \r\nlast")
        let lines = try readAll(InputSource(path: dir + "/a.ndjson", kind: .ndjson))
        XCTAssertEqual(lines.map(\.text), ["{\"a\":1}", "", "  \r", "last"])
        XCTAssertEqual(lines.map(\.line), [1, 2, 3, 4])
        XCTAssertEqual(lines.map(\.start), [0, 8, 9, 13])
        XCTAssertEqual(lines.map(\.end), [8, 9, 13, 17])
    }

    func testResumeAtOffsetPlainAndGzip() throws {
        var text = ""
        for i in 1...500 { text += "{\"n\":\(i)}\n" }
        try writeFile(dir + "/r.ndjson", text)
        let full = try readAll(InputSource(path: dir + "/r.ndjson", kind: .ndjson))
        let point = ResumePoint(offset: full[299].start, lineNumber: 300)
        let resumed = try readAll(InputSource(path: dir + "/r.ndjson", kind: .ndjson), resumeAt: point)
        XCTAssertEqual(resumed.first?.text, "{\"n\":300}")
        XCTAssertEqual(resumed.first?.line, 300)
        XCTAssertEqual(resumed.count, 201)
        let gz = try gzipFile(dir + "/r.ndjson", to: dir + "/r-compressed.bin")
        let gzResumed = try readAll(InputSource(path: gz, kind: .ndjson), resumeAt: point)
        XCTAssertEqual(gzResumed.map(\.text), resumed.map(\.text))
        XCTAssertEqual(gzResumed.map(\.end), resumed.map(\.end))
    }

    func testGzipDetectedByContentNotName() throws {
        var text = ""
        for i in 1...20000 { text += "{\"type\":\"track\",\"n\":\(i)}\n" }
        try writeFile(dir + "/big.ndjson", text)
        let gz = try gzipFile(dir + "/big.ndjson", to: dir + "/no-extension")
        let reader = try InputReader(source: InputSource(path: gz, kind: .ndjson))
        var count = 0
        var last = ""
        var lastFileBytes: UInt64 = 0
        try reader.forEachLine { l in
            count += 1
            last = String(decoding: l.bytes, as: UTF8.self)
            lastFileBytes = l.fileBytesRead
            return true
        }
        XCTAssertTrue(reader.isGzip)
        XCTAssertEqual(count, 20000)
        XCTAssertEqual(last, "{\"type\":\"track\",\"n\":20000}")
        XCTAssertEqual(lastFileBytes, reader.fileSize)
        XCTAssertLessThan(reader.fileSize!, UInt64(text.utf8.count))
    }

    func testConcatenatedGzipMembers() throws {
        try writeFile(dir + "/p1", "{\"a\":1}\n")
        try writeFile(dir + "/p2", "{\"a\":2}\n")
        let g1 = try gzipFile(dir + "/p1"), g2 = try gzipFile(dir + "/p2")
        let both = try Data(contentsOf: URL(fileURLWithPath: g1)) + Data(contentsOf: URL(fileURLWithPath: g2))
        try both.write(to: URL(fileURLWithPath: dir + "/both.gz"))
        XCTAssertEqual(try readAll(InputSource(path: dir + "/both.gz", kind: .ndjson)).map(\.text), ["{\"a\":1}", "{\"a\":2}"])
    }

    func testCorruptGzipThrows() throws {
        try writeFile(dir + "/x", String(repeating: "{\"a\":1}\n", count: 1000))
        let gz = try gzipFile(dir + "/x")
        var data = try Data(contentsOf: URL(fileURLWithPath: gz))
        data = data.prefix(data.count / 2)
        try data.write(to: URL(fileURLWithPath: gz))
        XCTAssertThrowsError(try readAll(InputSource(path: gz, kind: .ndjson)))
    }

    func testStdinThroughDescriptor() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let payload = Array("{\"s\":1}\n{\"s\":2}\n".utf8)
        XCTAssertEqual(write(fds[1], payload, payload.count), payload.count)
        close(fds[1])
        defer { close(fds[0]) }
        let reader = try InputReader(source: InputSource(path: "-", kind: .ndjson), stdinDescriptor: fds[0])
        var got: [String] = []
        try reader.forEachLine { got.append(String(decoding: $0.bytes, as: UTF8.self)); return true }
        XCTAssertEqual(got, ["{\"s\":1}", "{\"s\":2}"])
        XCTAssertNil(reader.fileSize)
    }

    /// A UTF-8 byte order mark at the start of a file (plain or gzip) is not part of line 1; one
    /// anywhere else is left alone.
    func testByteOrderMarkAtTheStartIsSkipped() throws {
        try writeFile(dir + "/bom.ndjson", "\u{FEFF}{\"a\":1}\n\u{FEFF}{\"b\":2}\n")
        for path in [dir + "/bom.ndjson", try gzipFile(dir + "/bom.ndjson")] {
            let lines = try readAll(InputSource(path: path, kind: .ndjson))
            XCTAssertEqual(lines.map(\.text), ["{\"a\":1}", "\u{FEFF}{\"b\":2}"], path)
            XCTAssertEqual(lines.first?.start, 3, "offsets stay file offsets")
            XCTAssertEqual(lines.first?.line, 1)
        }
        // A line of one 0xEF byte first: the mark that follows is in line 2, not at the start.
        try Data([0xEF, 0x0A, 0xEF, 0xBB, 0xBF, 0x7B, 0x7D, 0x0A]).write(to: URL(fileURLWithPath: dir + "/ef.ndjson"))
        let ef = try readAll(InputSource(path: dir + "/ef.ndjson", kind: .ndjson))
        XCTAssertEqual(ef.map(\.start), [0, 2])
        XCTAssertEqual(ef.last?.text, "\u{FEFF}{}")
        try writeFile(dir + "/short.ndjson", "\u{FEFF}")
        XCTAssertEqual(try readAll(InputSource(path: dir + "/short.ndjson", kind: .ndjson)).map(\.text), [])
        try writeFile(dir + "/plain.ndjson", "{}")
        XCTAssertEqual(try readAll(InputSource(path: dir + "/plain.ndjson", kind: .ndjson)).map(\.text), ["{}"])
    }

    func testOverlongLineIsTruncatedWithBoundedMemory() throws {
        let long = String(repeating: "x", count: 300_000)
        try writeFile(dir + "/l.ndjson", "{\"a\":1}\n\(long)\n{\"b\":2}\n")
        let lines = try readAll(InputSource(path: dir + "/l.ndjson", kind: .ndjson), maxLineBytes: 1000)
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(lines[1].text.count, 1000)
        XCTAssertTrue(lines[1].truncated)
        XCTAssertEqual(lines[1].end, UInt64(8 + 300_001))
        XCTAssertEqual(lines[2].text, "{\"b\":2}")
        XCTAssertEqual(lines[2].line, 3)
        XCTAssertFalse(lines[2].truncated)
    }

    func testStopEarly() throws {
        try writeFile(dir + "/s.ndjson", "1\n2\n3\n")
        let reader = try InputReader(source: InputSource(path: dir + "/s.ndjson", kind: .ndjson))
        var n = 0
        try reader.forEachLine { _ in n += 1; return n < 2 }
        XCTAssertEqual(n, 2)
    }

    func testResolverDirectoryGlobAndErrors() throws {
        try FileManager.default.createDirectory(atPath: dir + "/in/sub.ndjson", withIntermediateDirectories: true)
        for name in ["b.ndjson", "a.jsonl", "c.json", "d.txt", "e.ndjson.gz"] { try writeFile(dir + "/in/" + name, "{}\n") }
        let sources = try InputResolver.resolve([dir + "/in"])
        XCTAssertEqual(sources.map { ($0.path as NSString).lastPathComponent }, ["a.jsonl", "b.ndjson", "c.json", "e.ndjson.gz"])
        XCTAssertTrue(sources.allSatisfy { $0.kind == .ndjson })
        let globbed = try InputResolver.resolve([dir + "/in/*.ndjson*", "-"])
        XCTAssertEqual(globbed.map { ($0.path as NSString).lastPathComponent }, ["b.ndjson", "e.ndjson.gz", "-"])
        XCTAssertThrowsError(try InputResolver.resolve([dir + "/missing.ndjson"]))
        XCTAssertThrowsError(try InputResolver.resolve([dir + "/nothing*.ndjson"]))
    }

    func testSnapshotRecognisedAndReplayed() throws {
        let snap = """
            {"version":1,"events":[{"type":"track","event":"A","anonymousId":"x","timestamp":"2024-01-01T00:00:00Z"},
             [1,2],
             {"type":"track","event":"B","anonymousId":"x","timestamp":"2024-01-01T00:00:01Z"}]}
            """
        try writeFile(dir + "/queue.v1.json", snap)
        try writeFile(dir + "/other.json", snap)
        let sources = try InputResolver.resolve([dir + "/queue.v1.json", dir + "/other.json"])
        XCTAssertEqual(sources.map(\.kind), [.snapshot, .snapshot])
        let lines = try readAll(sources[0])
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(lines.map(\.line), [1, 2, 3])
        XCTAssertEqual(lines[1].text, "[1,2]")
        XCTAssertTrue(lines[2].text.contains("\"B\""))
        let resumed = try readAll(sources[0], resumeAt: ResumePoint(offset: 0, lineNumber: 3))
        XCTAssertEqual(resumed.map(\.line), [3])
        // An NDJSON .json file is not a snapshot.
        try writeFile(dir + "/lines.json", "{\"version\":1,\"events\":[]}\n{\"a\":1}\n")
        XCTAssertEqual(InputResolver.source(for: dir + "/lines.json").kind, .ndjson)
    }

    func testSnapshotUnknownVersionIsRefusedAndBrokenArrayKeepsPrefix() throws {
        try writeFile(dir + "/queue.v1.json", "{\"version\":2,\"events\":[{\"type\":\"track\"}]}")
        XCTAssertThrowsError(try readAll(InputSource(path: dir + "/queue.v1.json", kind: .snapshot))) { error in
            XCTAssertTrue("\(error)".contains("version 2"), "\(error)")
        }
        try writeFile(dir + "/b.queue.v1.json", "{\"version\":1,\"events\":[{\"a\":1},{\"b\":2},{\"c\":tru")
        let lines = try readAll(InputSource(path: dir + "/b.queue.v1.json", kind: .snapshot))
        XCTAssertEqual(lines.map(\.text), ["{\"a\":1}", "{\"b\":2}", "{\"c\":tru"])
    }

    func testGzippedSnapshot() throws {
        try writeFile(dir + "/s.json", "{\"version\":1,\"events\":[{\"a\":1}]}")
        let gz = try gzipFile(dir + "/s.json", to: dir + "/queue.v1.json")
        XCTAssertEqual(try readAll(InputSource(path: gz, kind: .snapshot)).map(\.text), ["{\"a\":1}"])
    }
}

final class ReadErrorTests: XCTestCase {
    func testTruncatedGzipIsReportedAndRunContinues() throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var text = ""
        for i in 0..<5000 { text += "{\"type\":\"track\",\"event\":\"E\(i)\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}\n" }
        try writeFile(dir + "/a.ndjson", text)
        let gz = try gzipFile(dir + "/a.ndjson")
        let data = try Data(contentsOf: URL(fileURLWithPath: gz))
        try data.prefix(data.count * 2 / 3).write(to: URL(fileURLWithPath: gz))
        try writeFile(dir + "/b.ndjson", "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}\n")
        let s = try Validator.validate(config: try testConfig(), inputs: [InputSource(path: gz, kind: .ndjson), InputSource(path: dir + "/b.ndjson", kind: .ndjson)])
        XCTAssertEqual(s.reasons, ["read_error": 1])
        XCTAssertGreaterThan(s.valid, 1)
        XCTAssertLessThan(s.valid, 5001)
        XCTAssertEqual(s.problems.first?.line, s.valid)  // valid lines of a.ndjson.gz, minus b's one, plus one
        XCTAssertEqual(s.lines, s.valid + 1)
    }
}
