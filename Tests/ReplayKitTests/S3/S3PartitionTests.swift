import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

extension S3Tests {
    /// A partition written to and replayed from an `s3://` prefix (moto), with large parts
    /// uploaded in pieces.
    @Suite(.serialized) final class PartitionTests {
        let dir: String
        init() throws { dir = try makeTempDir() }
        deinit { try? FileManager.default.removeItem(atPath: dir) }

        @Test func aLargePartIsUploadedInPiecesAndReadBackWhole() async throws {
            let moto = try S3Moto.shared
            try await moto.put(bucket: "parts-bucket", [:])
            let config = try ConfigLoader.load(
                path: try writeS3RunConfig(dir: "\(dir)/conf", url: "http://127.0.0.1:1", moto: moto),
                environment: moto.environment(home: dir))
            try await S3HTTPClient.withClient { http in
                var pieces = try S3PartitionStore(
                    location: "s3://parts-bucket/p/", store: try S3InputStore(settings: config.inputs.s3, http: http),
                    scratchDirectory: "\(dir)/scratch")
                pieces.pieceSize = 5 << 20
                let store = pieces
                #expect(!FileManager.default.fileExists(atPath: "\(dir)/scratch"), "a store makes no scratch directory itself")
                try FileManager.default.createDirectory(atPath: "\(dir)/scratch", withIntermediateDirectories: true)
                let file = "\(dir)/scratch/big.tmp"
                var rng = SeededRandom(seed: 7)
                let bytes = (0..<(12 << 20)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                try Data(bytes).write(to: URL(fileURLWithPath: file))
                try await ReadingJob.onThread { try store.publish(file: file, as: "parts/big.zst") }
                let back = try await ReadingJob.onThread { try store.get("parts/big.zst") }
                let same = back == bytes  // a Bool: the testing library would diff 12 MiB on a failure
                #expect(same, "the three pieces (5, 5 and 2 MiB) make the object")
                #expect(try await ReadingJob.onThread { try store.size(of: "parts/missing") } == nil)
                #expect(!FileManager.default.fileExists(atPath: file), "the local file is gone once published")
            }
        }

        @Test func aPartitionOfS3InputsInS3ReplaysAsOneRun() async throws {
            let moto = try S3Moto.shared
            var objects: [String: String] = [:]
            for k in 0..<3 {
                objects["raw/part-\(k).ndjson"] = try writeEventsFile(dir, "part-\(k).ndjson", s3Events("p\(k)", count: 400))
            }
            try await moto.put(bucket: "backfill-bucket", objects)
            try await RunTarget.run(dir: dir) { target in
                let path = try writeS3RunConfig(dir: "\(dir)/conf", url: target.url, moto: moto)
                let env = moto.environment(home: dir)
                let scratchRoot = "\(dir)/scratch-root"
                try FileManager.default.createDirectory(atPath: scratchRoot, withIntermediateDirectories: true)
                let summaries = try await partitionInputs(
                    config: path, inputs: ["s3://backfill-bucket/raw/"], output: "s3://backfill-bucket/parts/", shards: 3, workers: 2,
                    segmentBytes: 16 << 10, environment: env, scratchParent: scratchRoot)
                #expect(summaries.allSatisfy { $0.contains("finished") }, "\(summaries)")
                let left = try FileManager.default.contentsOfDirectory(atPath: scratchRoot)
                #expect(left.isEmpty, "each worker removes the scratch directory it wrote its parts in: \(left)")
                var delivered = 0
                for k in 0..<3 {
                    let report = try await replayPartition(
                        config: path, location: "s3://backfill-bucket/parts/", shard: try Shard(index: k, count: 3), stateDir: "\(dir)/s\(k)",
                        environment: env)
                    #expect(report.status == .completed, "\(report.stopReason ?? "")")
                    delivered += report.events.delivered
                }
                #expect(delivered == 1200)
                let ids = Set((0..<3).flatMap { k in (0..<400).map { "p\(k)-\($0)" } })
                expectExactlyOnce(try await target.received(), ids)
                let config = try ConfigLoader.load(path: path, environment: env)
                let status = try await S3HTTPClient.withClient { http in
                    try await PartitionStatus.readOnThread(location: "s3://backfill-bucket/parts/", config: config, http: http)
                }
                #expect(status.workers.allSatisfy { $0.state == "finished" } && status.shardsFinished == 3 && status.delivered == 1200)
                let reader = try await S3HTTPClient.withClient { http in
                    try Partitioner.makeStore("s3://backfill-bucket/parts/", config: config, s3: nil, http: http, scratchParent: scratchRoot)
                }
                let scratch = (reader as? S3PartitionStore)?.scratchDirectory ?? ""
                #expect(scratch.hasPrefix(scratchRoot + "/mr-replay-partition-"), "\(scratch)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: scratchRoot).isEmpty, "a store that reads makes nothing on disk")
            }
        }
    }
}
