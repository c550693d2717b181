import Foundation
import ReplayKit
import TestSupport
import Testing

/// Saving a checkpoint when one input can no longer be read.
@Suite final class CheckpointSaveTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// An input that cannot be read and of which nothing settled since its entry (it was never
    /// readable this run) keeps its entry; the other inputs' positions are saved and committed.
    @Test func anInputNeverReadableThisRunKeepsItsEntry() throws {
        let (state, identity, plan) = try setUpInputs()
        defer { identity.close() }
        var checkpoint = Checkpoint()
        let old = InputCheckpoint(
            path: plan.paths[1], offset: 3, line: 1, completed: false,
            fingerprint: FileFingerprint(size: 3, headLength: 3, headHash: "0", windowHash: nil, windowLength: nil))
        checkpoint.inputs[plan.paths[1]] = old
        let runState = try settled(plan, state, [(0, 3, 1), (0, 6, 2), (1, 3, 1)])
        #expect(throws: Never.self) {
            try state.saveCheckpoint(&checkpoint, plan: plan, runState: runState, identity: identity)
        }
        #expect(checkpoint.inputs[plan.paths[0]]?.offset == 6)
        #expect(checkpoint.inputs[plan.paths[0]]?.line == 2)
        #expect(checkpoint.inputs[plan.paths[1]] == old, "kept as it was")
        #expect(try state.loadCheckpoint(identity: identity) == checkpoint, "what was committed")
    }

    /// When lines of the unreadable input settled past its entry, nothing moves: the save fails
    /// and neither the checkpoint nor the identities learned are committed.
    @Test func anInputThatVanishedAfterItsLinesSettledStopsTheSave() throws {
        let (state, identity, plan) = try setUpInputs()
        defer { identity.close() }
        identity.learnUser(anonymousId: "a", userId: "u", sequence: 0)
        var checkpoint = Checkpoint()
        let runState = try settled(plan, state, [(0, 3, 1), (1, 3, 1)])
        let error = #expect(throws: (any Error).self) {
            try state.saveCheckpoint(&checkpoint, plan: plan, runState: runState, identity: identity)
        }
        if let error { #expect("\(error)".contains("b.ndjson"), "\(error)") }
        #expect(checkpoint == Checkpoint(), "unchanged in memory")
        #expect(try state.loadCheckpoint(identity: identity).inputs[plan.paths[0]] == nil, "nothing committed")
        #expect(identity.uncommittedCount == 1, "the identity learned is not committed either")
    }

    /// Inputs a (two lines) and b (one line), where b is deleted after the plan was made.
    private func setUpInputs() throws -> (StateDirectory, IdentityStore, ResumePlan) {
        try writeFile("\(dir)/a.ndjson", "{}\n{}\n")
        try writeFile("\(dir)/b.ndjson", "{}\n")
        let sources = ["a", "b"].map { InputSource(path: "\(dir)/\($0).ndjson", kind: .ndjson) }
        let plan = try ResumePlan(
            sources: sources, checkpoint: Checkpoint(), fresh: false, config: .defaults, identity: nil, runStartMillis: 0)
        try FileManager.default.removeItem(atPath: "\(dir)/b.ndjson")
        let state = try StateDirectory(path: "\(dir)/state")
        return (state, try IdentityStore(stateDirectory: state.path), plan)
    }

    /// A run state in which the given lines (input, end offset, line number) are read and settled.
    private func settled(_ plan: ResumePlan, _ state: StateDirectory, _ lines: [(Int, UInt64, Int)]) throws -> RunState {
        let runState = RunState(inputs: plan.paths, deadLetters: try DeadLetterWriter(path: state.deadLetterPath))
        runState.counters.withLock { c in
            for (input, end, line) in lines { _ = c.tracker.append(input: input, endOffset: end, lineNumber: line, settled: true) }
        }
        return runState
    }
}

/// Finding where an unterminated last line starts, when its file grew.
@Suite struct UnterminatedLineTests {
    @Test func startOfTheUnterminatedLine() throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = "\(dir)/f.ndjson"
        let long = String(repeating: "y", count: 150_000)  // spans several 64 KiB chunks
        try writeFile(path, "x\n" + long + "MORE\n")
        let end = UInt64(2 + long.utf8.count)
        #expect(ResumePlan.startOfUnterminatedLine(path: path, endingAt: end) == 2)
        #expect(ResumePlan.startOfUnterminatedLine(path: path, endingAt: 2) == nil, "ends with a newline")
        #expect(ResumePlan.startOfUnterminatedLine(path: path, endingAt: end + 5) == nil, "the file did not grow past it")
        try writeFile(path, long + "MORE")
        #expect(ResumePlan.startOfUnterminatedLine(path: path, endingAt: UInt64(long.utf8.count)) == 0, "the first line")
    }
}
