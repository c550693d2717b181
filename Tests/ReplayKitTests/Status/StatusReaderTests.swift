import Foundation
import ReplayKit
import TestSupport
import Testing

/// `mr-replay status` on a state directory whose runs were sharded.
@Suite struct ShardStatusTests {
    @Test func statusListsEachShardsState() throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for k in [1, 0] {
            let shard = try StateDirectory(path: "\(dir)/shard-\(k)-of-2")
            var checkpoint = Checkpoint()
            checkpoint.inputs["/in.ndjson"] = InputCheckpoint(
                path: "/in.ndjson", offset: UInt64(100 * (k + 1)), line: 10 * (k + 1), completed: false,
                fingerprint: FileFingerprint(size: 1_000, headLength: 0, headHash: "0", windowHash: nil, windowLength: nil))
            try shard.writeMirror(checkpoint)
        }
        try FileManager.default.createDirectory(atPath: "\(dir)/not-a-shard", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(dir)/shard-0-of-3", withIntermediateDirectories: true)
        try writeFile("\(dir)/shard-0-of-3/checkpoint.json", "{not json")  // one broken shard
        let status = try StatusReader.read(stateDirectory: dir)
        #expect(status.shards.map(\.stateDir) == ["\(dir)/shard-0-of-2", "\(dir)/shard-1-of-2", "\(dir)/shard-0-of-3"])
        #expect(status.shards.map { $0.inputs.first?.line } == [10, 20, nil])
        try #require(status.shards.count == 3)
        #expect(status.shards[0].error == nil)
        #expect(status.shards[2].error != nil, "reported, not thrown")
        let text = StatusReader.text(status)
        #expect(text.contains("no checkpointed inputs here; shards below"), "\(text)")
        #expect(text.contains("  state: \(dir)/shard-1-of-2"), "\(text)")
        #expect(text.contains("    /in.ndjson: line 20, byte 200"), "\(text)")
    }
}
