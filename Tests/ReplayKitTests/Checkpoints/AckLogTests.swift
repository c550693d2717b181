import Foundation
import ReplayKit
import TestSupport
import Testing

/// The acknowledgment log's records, its generations, and how the tracker says which lines an
/// acknowledgment settles.
@Suite final class AckLogTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// Random increasing lines, with runs, as four lanes' batches have them.
    static func lines(count: Int, seed: UInt64) -> [Int] {
        var rng = SeededRandom(seed: seed)
        var line = 0
        return (0..<count).map { _ in
            line += rng.next() % 4 == 0 ? 1 : 1 + Int(rng.next() % 9)
            return line
        }
    }

    @Test func linesRoundTripThroughTheirRecord() {
        for seed in 0..<200 as Range<UInt64> {
            let lines = Self.lines(count: 1 + Int(seed % 150), seed: seed)
            var out: [UInt8] = []
            AckLogFormat.appendLines(input: 3, lines: lines, to: &out)
            let body = out.dropLast(10).split(separator: UInt8(ascii: " "), maxSplits: 2)
            #expect(AckLogFormat.decodeLines(body[2]) == lines, "seed \(seed)")
        }
    }

    @Test func aRecordOfAHundredSpreadLinesTakesAboutTwoBytesALine() {
        // One lane of four: its lines are about four apart.
        let lines = (0..<100).map { 1_000_000 + $0 * 4 }
        var out: [UInt8] = []
        AckLogFormat.appendLines(input: 0, lines: lines, to: &out)
        #expect(out.count < 2 * lines.count + 30, "\(out.count) bytes: \(String(decoding: out, as: UTF8.self))")
    }

    /// A file with a declaration and lines for two inputs, as a run writes it.
    func writeLog(_ generation: UInt64, inputs: [AckLog.Input], lines: [(Int, [Int])], ids: [(Int, String)] = []) -> String {
        let log = AckLog(directory: dir + "/acks", inputs: inputs)
        while log.generation < generation { _ = log.rotate() }
        for (input, list) in lines { for line in list { log.stage(input: input, line: line) } }
        for (input, id) in ids { log.stage(input: input, messageId: id) }
        log.write()
        return AckLogFiles.path(directory: dir + "/acks", generation: log.generation)
    }

    func fileInput(_ name: String, content: String = "{}\n") throws -> AckLog.Input {
        try writeFile("\(dir)/\(name)", content)
        return AckLog.Input(path: "\(dir)/\(name)", object: nil, resumable: true, isSnapshot: false)
    }

    @Test func aWrittenLogReadsBackByPath() throws {
        let a = try fileInput("a.ndjson"), b = try fileInput("b.ndjson", content: "{\"x\":1}\n")
        let path = writeLog(1, inputs: [a, b], lines: [(0, [5, 3, 4, 9]), (1, [2])])
        let parsed = AckLogFormat.parse([UInt8](try #require(FileManager.default.contents(atPath: path))))
        #expect(parsed[a.path]?.lines == [3, 4, 5, 9], "staged out of order, logged sorted")
        #expect(parsed[b.path]?.lines == [2])
        #expect(parsed[a.path]?.declaration.fingerprint.headLength == 3)
    }

    @Test func aDamagedOrCutRecordEndsTheFileThere() throws {
        let a = try fileInput("a.ndjson")
        let log = AckLog(directory: dir + "/acks", inputs: [a])
        log.stage(input: 0, line: 1)
        log.write()
        log.stage(input: 0, line: 2)
        log.write()
        log.stage(input: 0, line: 3)
        log.write()
        let path = AckLogFiles.path(directory: dir + "/acks", generation: 1)
        var bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        #expect(AckLogFormat.parse(bytes)[a.path]?.lines == [1, 2, 3])
        // Cut in the middle of the last record: the two before it stand.
        #expect(AckLogFormat.parse(Array(bytes.dropLast(4)))[a.path]?.lines == [1, 2])
        // A changed digit in the second record fails its check: only the first stands.
        let records = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        let second = records[0].count + 1 + records[1].count + 1 + 2  // "l 0 2 ..." : the line's digit
        bytes[second] = UInt8(ascii: "7")
        #expect(AckLogFormat.parse(bytes)[a.path]?.lines == [1])
        // Zeros (what a power loss can leave) are not a record.
        #expect(AckLogFormat.parse([UInt8](repeating: 0, count: 64) + [0x0A]).isEmpty)
    }

    @Test func rotationCoversTheGenerationsWrittenSoFar() throws {
        let a = try fileInput("a.ndjson")
        let log = AckLog(directory: dir + "/acks", inputs: [a])
        log.stage(input: 0, line: 1)
        log.write()
        let covered = log.rotate()
        #expect(covered == [AckLogFiles.path(directory: dir + "/acks", generation: 1)])
        log.stage(input: 0, line: 2)
        log.write()
        // The new generation declares the input again: each file stands on its own.
        let second = AckLogFiles.path(directory: dir + "/acks", generation: 2)
        #expect(AckLogFormat.parse([UInt8](try #require(FileManager.default.contents(atPath: second))))[a.path]?.lines == [2])
        AckLogFiles.remove(covered)
        #expect(AckLogFiles.generations(in: dir + "/acks") == [2])
        // A new log in the same directory starts past what is there.
        #expect(AckLog(directory: dir + "/acks", inputs: [a]).generation == 3)
    }

    @Test func stdinAndFilesThatVanishedAreNotLogged() throws {
        let gone = AckLog.Input(path: "\(dir)/gone.ndjson", object: nil, resumable: true, isSnapshot: false)
        let stdin = AckLog.Input(path: "-", object: nil, resumable: false, isSnapshot: false)
        let log = AckLog(directory: dir + "/acks", inputs: [gone, stdin])
        log.stage(input: 0, line: 1)
        log.stage(input: 1, line: 1)
        log.write()
        #expect(log.bytesWritten == 0)
        #expect(AckLogFiles.generations(in: dir + "/acks").isEmpty)
    }

    @Test func snapshotMessageIdsAreLoggedAsJSONStrings() throws {
        var a = try fileInput("queue.v1.json")
        a.isSnapshot = true
        let path = writeLog(1, inputs: [a], lines: [(0, [1])], ids: [(0, "id with \"quotes\" and spaces")])
        let parsed = AckLogFormat.parse([UInt8](try #require(FileManager.default.contents(atPath: path))))
        #expect(parsed[a.path]?.messageIds == ["id with \"quotes\" and spaces"])
    }
}

/// Which line an acknowledgment settles, for lines of one event and lines of several.
@Suite struct SettleLineTests {
    @Test func aLineOfOneEventSettlesWithIt() {
        var t = SettlementTracker()
        let a = t.append(input: 0, endOffset: 10, lineNumber: 1, settled: false)
        let b = t.append(input: 0, endOffset: 20, lineNumber: 2, settled: false)
        #expect(t.settleLine(b)?.completedLine == 2)
        #expect(t.settleLine(a)?.completedLine == 1)
        #expect(t.settleLine(a) == nil, "already settled")
    }

    @Test func aLineOfSeveralEventsSettlesWithTheLastOfThemInAnyOrder() {
        // Line 1 (one event), then line 2 holding three events (a SimpleAnalytics payload): its
        // first two entries carry the settled prefix of line 1, the last one line 2.
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0], [2, 0, 1]] {
            var t = SettlementTracker()
            let one = t.append(input: 0, endOffset: 10, lineNumber: 1, settled: false)
            let parts = [
                t.append(input: 0, endOffset: 10, lineNumber: 1, settled: false, endsLine: false),
                t.append(input: 0, endOffset: 10, lineNumber: 1, settled: false, endsLine: false),
                t.append(input: 0, endOffset: 30, lineNumber: 2, settled: false),
            ]
            var completed: [Int] = []
            for k in order { if let line = t.settleLine(parts[k])?.completedLine { completed.append(line) } }
            #expect(completed == [2], "order \(order)")
            #expect(t.settledPastWatermark()[0]?.contains(2) == true)
            #expect(t.settledPastWatermark()[0]?.contains(1) != true, "line 1 is in flight")
            #expect(t.settleLine(one)?.completedLine == 1)
            #expect(t.watermark == 4)
        }
    }

    @Test func aLineWhoseLastEventIsNotRecordedYetIsNotSettled() {
        var t = SettlementTracker()
        let first = t.append(input: 0, endOffset: 0, lineNumber: 0, settled: false, endsLine: false)
        #expect(t.settleLine(first)?.completedLine == nil)
        let last = t.append(input: 0, endOffset: 50, lineNumber: 1, settled: false)
        #expect(t.settleLine(last)?.completedLine == 1, "its first event passed the watermark: settled")
    }

    @Test func partOfALineSettledIsNotListedPastTheWatermark() {
        var t = SettlementTracker()
        _ = t.append(input: 0, endOffset: 10, lineNumber: 1, settled: false)
        let p1 = t.append(input: 0, endOffset: 10, lineNumber: 1, settled: false, endsLine: false)
        let p2 = t.append(input: 0, endOffset: 30, lineNumber: 2, settled: false)
        _ = t.settleLine(p2)
        #expect(t.settledPastWatermark()[0] == nil, "line 2's first event is in flight")
        _ = t.settleLine(p1)
        #expect(t.settledPastWatermark()[0]?.pairs == [[2, 2]])
    }
}
