import Foundation
import ReplayKit
import TestSupport
import Testing

@Suite final class InputTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    @Test func linesOffsetsAndFinalLineWithoutNewline() throws {
        try writeFile(dir + "/a.ndjson", "{\"a\":1}\n\n  \r\nlast")
        let lines = try readAll(InputSource(path: dir + "/a.ndjson", kind: .ndjson))
        #expect(lines.map(\.text) == ["{\"a\":1}", "", "  \r", "last"])
        #expect(lines.map(\.line) == [1, 2, 3, 4])
        #expect(lines.map(\.start) == [0, 8, 9, 13])
        #expect(lines.map(\.end) == [8, 9, 13, 17])
    }

    @Test func resumeAtOffsetPlainAndGzip() throws {
        var text = ""
        for i in 1...500 { text += "{\"n\":\(i)}\n" }
        try writeFile(dir + "/r.ndjson", text)
        let full = try readAll(InputSource(path: dir + "/r.ndjson", kind: .ndjson))
        let point = ResumePoint(offset: full[299].start, lineNumber: 300)
        let resumed = try readAll(InputSource(path: dir + "/r.ndjson", kind: .ndjson), resumeAt: point)
        #expect(resumed.first?.text == "{\"n\":300}")
        #expect(resumed.first?.line == 300)
        #expect(resumed.count == 201)
        let gz = try gzipFile(dir + "/r.ndjson", to: dir + "/r-compressed.bin")
        let gzResumed = try readAll(InputSource(path: gz, kind: .ndjson), resumeAt: point)
        #expect(gzResumed.map(\.text) == resumed.map(\.text))
        #expect(gzResumed.map(\.end) == resumed.map(\.end))
    }

    @Test func gzipDetectedByContentNotName() throws {
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
        #expect(reader.isGzip)
        #expect(count == 20000)
        #expect(last == "{\"type\":\"track\",\"n\":20000}")
        #expect(lastFileBytes == reader.fileSize)
        #expect(try #require(reader.fileSize) < UInt64(text.utf8.count))
    }

    @Test func concatenatedGzipMembers() throws {
        try writeFile(dir + "/p1", "{\"a\":1}\n")
        try writeFile(dir + "/p2", "{\"a\":2}\n")
        let g1 = try gzipFile(dir + "/p1"), g2 = try gzipFile(dir + "/p2")
        let both = try Data(contentsOf: URL(fileURLWithPath: g1)) + Data(contentsOf: URL(fileURLWithPath: g2))
        try both.write(to: URL(fileURLWithPath: dir + "/both.gz"))
        #expect(try readAll(InputSource(path: dir + "/both.gz", kind: .ndjson)).map(\.text) == ["{\"a\":1}", "{\"a\":2}"])
    }

    @Test func corruptGzipThrows() throws {
        try writeFile(dir + "/x", String(repeating: "{\"a\":1}\n", count: 1000))
        let gz = try gzipFile(dir + "/x")
        var data = try Data(contentsOf: URL(fileURLWithPath: gz))
        data = data.prefix(data.count / 2)
        try data.write(to: URL(fileURLWithPath: gz))
        #expect(throws: (any Error).self) { try readAll(InputSource(path: gz, kind: .ndjson)) }
    }

    @Test func stdinThroughDescriptor() throws {
        var fds: [Int32] = [0, 0]
        let piped = pipe(&fds)
        #expect(piped == 0)
        let payload = Array("{\"s\":1}\n{\"s\":2}\n".utf8)
        #expect(write(fds[1], payload, payload.count) == payload.count)
        close(fds[1])
        defer { close(fds[0]) }
        let reader = try InputReader(source: InputSource(path: "-", kind: .ndjson), stdinDescriptor: fds[0])
        var got: [String] = []
        try reader.forEachLine {
            got.append(String(decoding: $0.bytes, as: UTF8.self)); return true
        }
        #expect(got == ["{\"s\":1}", "{\"s\":2}"])
        #expect(reader.fileSize == nil)
    }

    /// A UTF-8 byte order mark at the start of a file (plain or gzip) is not part of line 1; one
    /// anywhere else is left alone.
    @Test(arguments: [false, true])
    func byteOrderMarkAtTheStartIsSkipped(gzip: Bool) throws {
        try writeFile(dir + "/bom.ndjson", "\u{FEFF}{\"a\":1}\n\u{FEFF}{\"b\":2}\n")
        let path = try gzip ? gzipFile(dir + "/bom.ndjson") : dir + "/bom.ndjson"
        let lines = try readAll(InputSource(path: path, kind: .ndjson))
        #expect(lines.map(\.text) == ["{\"a\":1}", "\u{FEFF}{\"b\":2}"], "\(path)")
        #expect(lines.first?.start == 3, "offsets stay file offsets")
        #expect(lines.first?.line == 1)
    }

    /// A byte order mark that is not at the very start, or is all there is.
    @Test func byteOrderMarkNotAtTheStartOrAlone() throws {
        // A line of one 0xEF byte first: the mark that follows is in line 2, not at the start.
        try Data([0xEF, 0x0A, 0xEF, 0xBB, 0xBF, 0x7B, 0x7D, 0x0A]).write(to: URL(fileURLWithPath: dir + "/ef.ndjson"))
        let ef = try readAll(InputSource(path: dir + "/ef.ndjson", kind: .ndjson))
        #expect(ef.map(\.start) == [0, 2])
        #expect(ef.last?.text == "\u{FEFF}{}")
        try writeFile(dir + "/short.ndjson", "\u{FEFF}")
        #expect(try readAll(InputSource(path: dir + "/short.ndjson", kind: .ndjson)).map(\.text) == [])
        try writeFile(dir + "/plain.ndjson", "{}")
        #expect(try readAll(InputSource(path: dir + "/plain.ndjson", kind: .ndjson)).map(\.text) == ["{}"])
    }

    @Test func overlongLineIsTruncatedWithBoundedMemory() throws {
        let long = String(repeating: "x", count: 300_000)
        try writeFile(dir + "/l.ndjson", "{\"a\":1}\n\(long)\n{\"b\":2}\n")
        let lines = try readAll(InputSource(path: dir + "/l.ndjson", kind: .ndjson), maxLineBytes: 1000)
        try #require(lines.count == 3)
        #expect(lines[1].text.count == 1000)
        #expect(lines[1].truncated)
        #expect(lines[1].end == UInt64(8 + 300_001))
        #expect(lines[2].text == "{\"b\":2}")
        #expect(lines[2].line == 3)
        #expect(!lines[2].truncated)
    }

    @Test func stopEarly() throws {
        try writeFile(dir + "/s.ndjson", "1\n2\n3\n")
        let reader = try InputReader(source: InputSource(path: dir + "/s.ndjson", kind: .ndjson))
        var n = 0
        try reader.forEachLine { _ in
            n += 1; return n < 2
        }
        #expect(n == 2)
    }

    @Test func resolverDirectoryGlobAndErrors() throws {
        try FileManager.default.createDirectory(atPath: dir + "/in/sub.ndjson", withIntermediateDirectories: true)
        for name in ["b.ndjson", "a.jsonl", "c.json", "d.txt", "e.ndjson.gz"] { try writeFile(dir + "/in/" + name, "{}\n") }
        let sources = try InputResolver.resolve([dir + "/in"])
        #expect((sources.map { ($0.path as NSString).lastPathComponent }) == ["a.jsonl", "b.ndjson", "c.json", "e.ndjson.gz"])
        #expect(sources.allSatisfy { $0.kind == .ndjson })
        let globbed = try InputResolver.resolve([dir + "/in/*.ndjson*", "-"])
        #expect((globbed.map { ($0.path as NSString).lastPathComponent }) == ["b.ndjson", "e.ndjson.gz", "-"])
        #expect(throws: (any Error).self) { try InputResolver.resolve([dir + "/missing.ndjson"]) }
        #expect(throws: (any Error).self) { try InputResolver.resolve([dir + "/nothing*.ndjson"]) }
    }

    @Test func snapshotRecognisedAndReplayed() throws {
        let snap = """
            {"version":1,"events":[{"type":"track","event":"A","anonymousId":"x","timestamp":"2024-01-01T00:00:00Z"},
             [1,2],
             {"type":"track","event":"B","anonymousId":"x","timestamp":"2024-01-01T00:00:01Z"}]}
            """
        try writeFile(dir + "/queue.v1.json", snap)
        try writeFile(dir + "/other.json", snap)
        let sources = try InputResolver.resolve([dir + "/queue.v1.json", dir + "/other.json"])
        #expect(sources.map(\.kind) == [.snapshot, .snapshot])
        let lines = try readAll(sources[0])
        try #require(lines.count == 3)
        #expect(lines.map(\.line) == [1, 2, 3])
        #expect(lines[1].text == "[1,2]")
        #expect(lines[2].text.contains("\"B\""))
        let resumed = try readAll(sources[0], resumeAt: ResumePoint(offset: 0, lineNumber: 3))
        #expect(resumed.map(\.line) == [3])
        // An NDJSON .json file is not a snapshot.
        try writeFile(dir + "/lines.json", "{\"version\":1,\"events\":[]}\n{\"a\":1}\n")
        #expect(InputResolver.source(for: dir + "/lines.json").kind == .ndjson)
    }

    @Test func snapshotUnknownVersionIsRefusedAndBrokenArrayKeepsPrefix() throws {
        try writeFile(dir + "/queue.v1.json", "{\"version\":2,\"events\":[{\"type\":\"track\"}]}")
        let error = #expect(throws: (any Error).self) {
            try readAll(InputSource(path: self.dir + "/queue.v1.json", kind: .snapshot))
        }
        if let error { #expect("\(error)".contains("version 2"), "\(error)") }
        try writeFile(dir + "/b.queue.v1.json", "{\"version\":1,\"events\":[{\"a\":1},{\"b\":2},{\"c\":tru")
        let lines = try readAll(InputSource(path: dir + "/b.queue.v1.json", kind: .snapshot))
        #expect(lines.map(\.text) == ["{\"a\":1}", "{\"b\":2}", "{\"c\":tru"])
    }

    @Test func gzippedSnapshot() throws {
        try writeFile(dir + "/s.json", "{\"version\":1,\"events\":[{\"a\":1}]}")
        let gz = try gzipFile(dir + "/s.json", to: dir + "/queue.v1.json")
        #expect(try readAll(InputSource(path: gz, kind: .snapshot)).map(\.text) == ["{\"a\":1}"])
    }
}

@Suite struct ReadErrorTests {
    @Test func truncatedGzipIsReportedAndRunContinues() throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var text = ""
        for i in 0..<5000 { text += "{\"type\":\"track\",\"event\":\"E\(i)\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}\n" }
        try writeFile(dir + "/a.ndjson", text)
        let gz = try gzipFile(dir + "/a.ndjson")
        let data = try Data(contentsOf: URL(fileURLWithPath: gz))
        try data.prefix(data.count * 2 / 3).write(to: URL(fileURLWithPath: gz))
        try writeFile(dir + "/b.ndjson", "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}\n")
        let s = try Validator.validate(
            config: try testConfig(), inputs: [InputSource(path: gz, kind: .ndjson), InputSource(path: dir + "/b.ndjson", kind: .ndjson)])
        #expect(s.reasons == ["read_error": 1])
        #expect(s.valid > 1)
        #expect(s.valid < 5001)
        #expect(s.problems.first?.line == s.valid)  // valid lines of a.ndjson.gz, minus b's one, plus one
        #expect(s.lines == s.valid + 1)
    }
}
