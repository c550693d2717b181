import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// A run folds the acknowledgment log that a run killed before its checkpoint left: the lines it
/// lists are read and enriched again (identities stay exact) but not sent.
@Suite(.serialized) final class AckLogResumeTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// Writes the log a killed run would have left in `state`: `lines` of `input` acknowledged.
    func leaveLog(state: String, input: String, lines: [Int]) {
        let log = AckLog(
            directory: StateDirectory.ackDirectory(in: state),
            inputs: [AckLog.Input(path: input, object: nil, resumable: true, isSnapshot: false)])
        for line in lines { log.stage(input: 0, line: line) }
        log.write()
    }

    /// The reference: what one uninterrupted run sends, by messageId.
    func reference(_ input: String) async throws -> [String: JSONObject] {
        return try await RunTarget.run(dir: dir, name: "reference") { target in
            try FileManager.default.createDirectory(atPath: "\(dir)/ref", withIntermediateDirectories: true)
            try seedState("\(dir)/ref/state")
            let config = try writeRunConfig(dir: "\(dir)/ref", url: target.url)
            _ = try await replay(config: config, inputs: [input])
            return try await target.received().events
        }
    }

    @Test func acknowledgedLinesAreReadAgainButNotSent() async throws {
        let input = "\(dir)/in.ndjson"
        try writeFile(input, generateEvents(count: 100).text)
        let expected = try await reference(input)
        #expect(expected.count == 100)

        try FileManager.default.createDirectory(atPath: "\(dir)/run", withIntermediateDirectories: true)
        try seedState("\(dir)/run/state")
        let acked = Array(1...40) + Array(61...70)
        leaveLog(state: "\(dir)/run/state", input: input, lines: acked)
        try await RunTarget.run(dir: dir, name: "resumed") { target in
            let config = try writeRunConfig(dir: "\(dir)/run", url: target.url)
            let report = try await replay(config: config, inputs: [input])
            let got = try await target.received()

            #expect(report.status == .completed)
            #expect(report.events.alreadyDelivered == 50)
            #expect(report.events.delivered == 50)
            #expect(report.acknowledgments?.foldedLines == 50)
            #expect(got.events.count == 50)
            #expect(got.copies.values.allSatisfy { $0 == 1 })
            // The lines sent are the others (`generateEvents` gives line i + 1 the messageId m-1-i
            // unless i is a multiple of 3), exactly as the uninterrupted run sent them: carry-forward
            // from the acknowledged lines (identify and group lines among them) is intact.
            for i in 0..<100 where i % 3 != 0 {
                #expect((got.events["m-1-\(i)"] != nil) == !acked.contains(i + 1), "line \(i + 1)")
            }
            for (id, event) in got.events { #expect(expected[id] == event, "\(id) differs from the uninterrupted run") }
            #expect(AckLogFiles.generations(in: "\(dir)/run/state/acks").isEmpty, "the log was folded and removed")
        }
    }

    @Test func aLogWrittenForOtherContentIsNotApplied() async throws {
        let input = "\(dir)/in.ndjson"
        try writeFile(input, generateEvents(count: 30, seed: 1).text)
        try seedState("\(dir)/state")
        leaveLog(state: "\(dir)/state", input: input, lines: Array(1...30))
        // The file is replaced before the next run: the log is about what it held before.
        try writeFile(input, generateEvents(count: 30, seed: 2).text)
        try await RunTarget.run(dir: dir) { target in
            let config = try writeRunConfig(dir: dir, url: target.url)
            let report = try await replay(config: config, inputs: [input])
            let got = try await target.received()
            #expect(report.events.delivered == 30)
            #expect(report.events.alreadyDelivered == 0)
            #expect(got.events.count == 30)
        }
    }

    @Test func freshForgetsTheLog() async throws {
        let input = "\(dir)/in.ndjson"
        try writeFile(input, generateEvents(count: 20).text)
        try seedState("\(dir)/state")
        leaveLog(state: "\(dir)/state", input: input, lines: Array(1...20))
        try await RunTarget.run(dir: dir) { target in
            let config = try writeRunConfig(dir: dir, url: target.url)
            let report = try await replay(config: config, inputs: [input], fresh: true)
            _ = try await target.received()
            #expect(report.events.delivered == 20)
            #expect(AckLogFiles.generations(in: "\(dir)/state/acks").isEmpty)
        }
    }

    @Test func snapshotMessageIdsAreFoldedAsSettled() throws {
        // A snapshot's events are logged by messageId as well, for a snapshot rewritten before
        // the next run (then positions mean nothing): folding records them as settled.
        let queue = "\(dir)/queue.v1.json"
        try writeFile(queue, #"{"version":1,"events":[]}"#)
        let log = AckLog(
            directory: StateDirectory.ackDirectory(in: "\(dir)/state"),
            inputs: [AckLog.Input(path: queue, object: nil, resumable: true, isSnapshot: true)])
        log.stage(input: 0, line: 1)
        log.stage(input: 0, messageId: "A-1")
        log.stage(input: 0, messageId: "B-2")
        log.write()
        let state = try StateDirectory(path: "\(dir)/state")
        let identity = try IdentityStore(stateDirectory: state.path)
        defer { identity.close() }
        var checkpoint = try state.loadCheckpoint(identity: identity)
        let fold = try state.foldAcknowledgments(into: &checkpoint, identity: identity)
        #expect(fold?.messageIds == 2)
        #expect(fold?.lines == 1)
        #expect(try identity.settledMessageIds(input: queue) == ["A-1", "B-2"])
        #expect(checkpoint.inputs[queue]?.settledAfter == [[1, 1]])
        // Committed: a store opened again has the folded checkpoint.
        #expect(try state.loadCheckpoint(identity: identity).inputs[queue]?.settledAfter == [[1, 1]])
        #expect(AckLogFiles.generations(in: state.ackDirectory).isEmpty)
    }

    @Test func statusShowsALogLeftBehind() throws {
        let input = "\(dir)/in.ndjson"
        try writeFile(input, generateEvents(count: 20).text)
        leaveLog(state: "\(dir)/state", input: input, lines: [3, 4, 5, 9])
        let status = try StatusReader.read(stateDirectory: "\(dir)/state")
        #expect(status.acknowledgments?.lines == 4)
        #expect(status.acknowledgments?.files == 1)
        #expect(StatusReader.text(status).contains("acknowledgment log: 1 file(s)"))
    }
}
