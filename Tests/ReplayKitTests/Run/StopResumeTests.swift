import Foundation
import JSONCore
import Logging
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import ReplayKit
import Synchronization
import TestSupport
import Testing

/// A clean stop followed by a resume sends every event exactly once, even when events were
/// delivered past the checkpoint (out of order, on other lanes) while an earlier one was stuck.
@Suite(.serialized) struct StopResumeTests {
    /// Answers 200 to every request; with `stuckId`, a request holding that messageId never
    /// answers (until the run cancels it).
    static func recording(stuckId: String?) -> ScriptedTransport {
        ScriptedTransport(holding: { events in events.contains { $0["messageId"]?.stringValue == stuckId } })
    }

    static func run(dir: String, config: String, transport: ScriptedTransport, stop: StopSignal) async throws -> RunReport {
        let loaded = try ConfigLoader.load(path: config, environment: [:])
        var options = RunOptions(inputs: ["\(dir)/in.ndjson"])
        options.progress = .off
        options.stopGrace = .milliseconds(50)
        options.checkpointInterval = .milliseconds(50)
        var logger = Logger(label: "stop-resume-test")
        logger.logLevel = .critical
        return try await ReplayRunner(config: loaded, options: options, logger: logger, transport: transport).run(stop: stop)
    }

    @Test func aStopAndAResumeSendEveryEventOnce() async throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (text, count) = generateEvents(count: 3000, identities: 40)
        try writeFile("\(dir)/in.ndjson", text)
        let config = try writeRunConfig(dir: dir, url: "http://127.0.0.1:9")
        // Line 2's batch hangs: its lane stops there, the other lanes deliver everything.
        let first = Self.recording(stuckId: "m-1-1")
        let otherLanes = try Self.linesOnOtherLanes(than: 2, text)
        let stop = StopSignal()
        let watch = try FileWatch(dir)  // and the state directory the run creates in it
        let run = Task { try await Self.run(dir: dir, config: config, transport: first, stop: stop) }
        // Stop once the other lanes are done: the checkpoint (written every 50 ms) shows every
        // line of theirs settled.
        let done = await watch.wait(until: {
            guard let input = readCheckpointMirror("\(dir)/state")?.inputs.values.first else { return false }
            let after = SettledLines(pairs: input.settledAfter)
            return otherLanes.allSatisfy { $0 <= input.line || after?.contains($0) == true }
        })
        #expect(done == .held, "the other lanes settled their \(otherLanes.count) lines")
        stop.request()
        let report1 = try await run.value
        #expect(report1.status == .interrupted)
        #expect(report1.events.pending > 0)
        let sentFirst = first.deliveredMessageIds
        #expect(sentFirst.count > 0, "the other lanes went on delivering")

        let second = Self.recording(stuckId: nil)
        let report2 = try await Self.run(dir: dir, config: config, transport: second, stop: StopSignal())
        #expect(report2.status == .completed, "\(report2.summary)")
        let sentSecond = second.deliveredMessageIds
        let twice = Set(sentFirst).intersection(sentSecond)
        #expect(twice.count == 0, "events sent by both runs")
        #expect(Set(sentFirst + sentSecond).count == count)
        #expect(sentFirst.count + sentSecond.count == count)
        // What the first run delivered past its checkpoint is read again and counted, not sent.
        #expect(report2.events.alreadyDelivered == sentFirst.count - report2.events.resumedPast)
        #expect(report2.events.alreadyDelivered > 0)
        #expect(report2.events.delivered == sentSecond.count)
    }

    /// The line numbers of `text` whose events go to another engine lane than line `line`'s
    /// (by anonymousId, over `writeRunConfig`'s `concurrency: 4` lanes).
    static func linesOnOtherLanes(than line: Int, _ text: String) throws -> [Int] {
        let lanes = try text.split(separator: "\n").map { event in
            let anonymousId = try #require(try JSONValue(parsing: String(event)).objectValue?["anonymousId"]?.stringValue)
            return LaneRouting.lane(forKey: LaneRouting.laneKey(forOrderingKey: anonymousId), laneCount: 4)
        }
        return lanes.indices.filter { lanes[$0] != lanes[line - 1] }.map { $0 + 1 }
    }

    @Test func settledLinesRoundTripAndRejectMalformedPairs() {
        let lines = SettledLines(sortedLines: [3, 4, 4, 5, 9, 11, 12])
        #expect(lines?.pairs == [[3, 5], [9, 9], [11, 12]])
        #expect(SettledLines(pairs: lines?.pairs) == lines)
        for line in [3, 4, 5, 9, 11, 12] { #expect(lines?.contains(line) == true) }
        for line in [1, 2, 6, 8, 10, 13] { #expect(lines?.contains(line) == false) }
        #expect(SettledLines(pairs: [[5, 3]]) == nil)
        #expect(SettledLines(pairs: [[3, 5], [4, 6]]) == nil)
        #expect(SettledLines(pairs: [[1]]) == nil)
        #expect(SettledLines(pairs: []) == nil)
    }
}
