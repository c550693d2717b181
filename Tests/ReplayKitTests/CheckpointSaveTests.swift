import Foundation
import XCTest

@testable import ReplayKit

/// Saving a checkpoint when one input can no longer be read.
final class CheckpointSaveTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// An input that vanished (or never could be read) keeps its previous entry; the other
    /// inputs' positions are still saved, committed and mirrored.
    func testAnUnreadableInputDoesNotStopTheOtherCheckpoints() throws {
        try writeFile("\(dir)/a.ndjson", "{}\n{}\n")
        try writeFile("\(dir)/b.ndjson", "{}\n")
        let sources = ["a", "b"].map { InputSource(path: "\(dir)/\($0).ndjson", kind: .ndjson) }
        let plan = try ResumePlan(sources: sources, checkpoint: Checkpoint(), fresh: false)
        try FileManager.default.removeItem(atPath: "\(dir)/b.ndjson")

        let state = try StateDirectory(path: "\(dir)/state")
        let identity = try IdentityStore(stateDirectory: state.path)
        defer { identity.close() }
        let runState = RunState(inputs: plan.paths, deadLetters: try DeadLetterWriter(path: state.deadLetterPath))
        runState.counters.withLock { c in
            _ = c.tracker.append(input: 0, endOffset: 3, lineNumber: 1, settled: true)
            _ = c.tracker.append(input: 0, endOffset: 6, lineNumber: 2, settled: true)
            _ = c.tracker.append(input: 1, endOffset: 3, lineNumber: 1, settled: true)
        }
        var checkpoint = Checkpoint()
        XCTAssertNoThrow(try state.saveCheckpoint(&checkpoint, plan: plan, runState: runState, identity: identity))
        XCTAssertEqual(checkpoint.inputs[plan.paths[0]]?.offset, 6)
        XCTAssertEqual(checkpoint.inputs[plan.paths[0]]?.line, 2)
        XCTAssertNil(checkpoint.inputs[plan.paths[1]], "no fingerprint, no entry")
        XCTAssertEqual(try state.loadCheckpoint(identity: identity), checkpoint, "what was committed")
    }
}

/// Finding where an unterminated last line starts, when its file grew.
final class UnterminatedLineTests: XCTestCase {
    func testStartOfTheUnterminatedLine() throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = "\(dir)/f.ndjson"
        let long = String(repeating: "y", count: 150_000)  // spans several 64 KiB chunks
        try writeFile(path, "x\n" + long + "MORE\n")
        let end = UInt64(2 + long.utf8.count)
        XCTAssertEqual(ResumePlan.startOfUnterminatedLine(path: path, endingAt: end), 2)
        XCTAssertNil(ResumePlan.startOfUnterminatedLine(path: path, endingAt: 2), "ends with a newline")
        XCTAssertNil(ResumePlan.startOfUnterminatedLine(path: path, endingAt: end + 5), "the file did not grow past it")
        try writeFile(path, long + "MORE")
        XCTAssertEqual(ResumePlan.startOfUnterminatedLine(path: path, endingAt: UInt64(long.utf8.count)), 0, "the first line")
    }
}
