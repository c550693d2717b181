import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// The real `mr-replay partition` killed in the middle of a part: what it leaves cannot be
/// replayed, and the same command run again finishes from its last finished segment.
@Suite(
    .serialized, .heavy,
    .enabled(if: hasBuiltBinary("mr-replay"), "needs the mr-replay binary next to the test bundle (swift build)"))
final class PartitionCrashTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    @Test func aWorkerKilledMidPartLeavesNothingAShardCanReadAndARerunFinishes() async throws {
        try FileManager.default.createDirectory(atPath: "\(dir)/in", withIntermediateDirectories: true)
        let input = "\(dir)/in/events.ndjson"
        try writeFile(input, generateEvents(count: 40_000, identities: 400).text)
        try FileManager.default.createDirectory(atPath: "\(dir)/conf", withIntermediateDirectories: true)
        try await RunTarget.run(dir: dir) { target in
            let config = try writeRunConfig(dir: "\(dir)/conf", url: target.url)
            let parts = "\(dir)/parts"
            let args = ["partition", "--config", config, "--shards", "2", "--segment-megabytes", "1", "--output", parts, input]
            try FileManager.default.createDirectory(atPath: parts + "/progress", withIntermediateDirectories: true)
            let watch = try FileWatch(parts)
            let progress = parts + "/" + PartitionLayout.progress(worker: 0, of: 1)
            let worker = try ChildProcess.launch(try builtBinary("mr-replay"), args, in: dir)
            // Killed once its first segment is published: the second one's parts are being written.
            let landed = await watch.wait(
                whileRunning: worker.pid, until: { FileManager.default.fileExists(atPath: progress) }, then: { worker.send(SIGKILL) })
            #expect(landed == .held, "the kill must land while the worker is writing")
            #expect(await worker.exit().killed(by: SIGKILL))
            #expect(!FileManager.default.fileExists(atPath: parts + "/" + PartitionLayout.manifest(worker: 0, of: 1)))
            await #expect(throws: PartitionNotReady.self, "a shard reads nothing of an unfinished worker") {
                _ = try await replayPartition(config: config, location: parts, shard: try Shard(index: 0, count: 2), stateDir: "\(dir)/s0")
            }

            let rerun = try ChildProcess.launch(try builtBinary("mr-replay"), args, in: dir, stderr: "\(dir)/rerun.txt")
            #expect(await rerun.exit().status == 0)
            let said = try String(contentsOfFile: "\(dir)/rerun.txt", encoding: .utf8)
            #expect(!said.contains("(0 from an earlier run)") && said.contains("from an earlier run"), "it went on: \(said)")
            for k in 0..<2 {
                let report = try await replayPartition(
                    config: config, location: parts, shard: try Shard(index: k, count: 2), stateDir: "\(dir)/s\(k)")
                #expect(report.status == .completed, "\(report.stopReason ?? "")")
            }
            let got = try await target.received()
            #expect(got.events.count == 40_000 && got.copies.values.allSatisfy { $0 == 1 }, "every line once: \(got.events.count)")
        }
    }
}
