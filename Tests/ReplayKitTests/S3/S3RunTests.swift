import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

extension S3Tests {
    /// `s3://` inputs run in process, through ReplayRunner into the test collector.
    @Suite(.serialized) final class RunTests {
        let dir: String
        init() throws { dir = try makeTempDir() }
        deinit { try? FileManager.default.removeItem(atPath: dir) }

        @Test func aPrefixOfMoreThanAThousandKeysIsListedPageByPageAndReadOnceInKeyOrder() async throws {
            let moto = try S3Moto.shared
            var objects: [String: String] = [:]
            try FileManager.default.createDirectory(atPath: "\(dir)/objects", withIntermediateDirectories: true)
            for i in 0..<1050 {
                let key = "daily/2024-05-01/part-\(String(format: "%05d", i)).ndjson"
                objects[key] = try writeEventsFile("\(dir)/objects", "\(i).ndjson", s3Events("k\(i)", count: 1))
            }
            objects["daily/_SUCCESS"] = try writeEventsFile("\(dir)/objects", "success", "")
            try await moto.put(bucket: "listing-bucket", objects)
            try await RunTarget.run(dir: dir) { target in
                let config = try writeS3RunConfig(dir: "\(dir)/run", url: target.url, moto: moto)
                let report = try await replayS3(
                    config: config, inputs: ["s3://listing-bucket/daily/"], environment: moto.environment(home: dir))
                #expect(report.status == .completed, "\(report.stopReason ?? "")")
                #expect(report.inputs.count == 1050)
                #expect(report.inputs.map(\.path) == report.inputs.map(\.path).sorted(), "key order")
                #expect(report.warnings.contains { $0.contains("daily/_SUCCESS") }, "the marker is named: \(report.warnings)")
                let ids = Set((0..<1050).map { "k\($0)-0" })
                expectExactlyOnce(try await target.received(), ids)
            }
        }

        @Test func gzipObjectsALargeObjectAndALocalFileInOneRun() async throws {
            let moto = try S3Moto.shared
            // Segment's S3 destination layout: gzip objects with no other extension.
            let gz = try writeEventsFile(dir, "segment.gz", s3Events("gz", count: 3000), gzip: true)
            // Larger than the reader's 4 MiB buffer.
            let big = try writeEventsFile(dir, "big.ndjson", s3Events("big", count: 20_000, pad: 120))
            #expect(try FileManager.default.attributesOfItem(atPath: big)[.size] as? UInt64 ?? 0 > 4 << 20)
            let etags = try await moto.put(
                bucket: "segment-bucket",
                [
                    "segment-logs/src-a/1714521600000/1714525200000.a1b2c3.gz": gz,
                    "segment-logs/src-a/1714608000000/big.ndjson": big,
                ])
            let local = try writeEventsFile(dir, "local.ndjson", s3Events("local", count: 500))
            try await RunTarget.run(dir: dir) { target in
                let config = try writeS3RunConfig(dir: "\(dir)/run", url: target.url, moto: moto)
                let report = try await replayS3(
                    config: config, inputs: [local, "s3://segment-bucket/segment-logs"], environment: moto.environment(home: dir))
                #expect(report.status == .completed, "\(report.stopReason ?? "")")
                expectExactlyOnce(
                    try await target.received(),
                    s3EventIds("gz", count: 3000).union(s3EventIds("big", count: 20_000)).union(s3EventIds("local", count: 500)))
                // The checkpoint: one entry per object, keyed by its URL, with bucket, key and ETag.
                let checkpoint = try #require(readCheckpointMirror("\(dir)/run/state"))
                let object = try #require(checkpoint.inputs["s3://segment-bucket/segment-logs/src-a/1714608000000/big.ndjson"])
                #expect(object.completed && object.bucket == "segment-bucket" && object.key == "segment-logs/src-a/1714608000000/big.ndjson")
                #expect(object.etag == etags["segment-logs/src-a/1714608000000/big.ndjson"])
                #expect(checkpoint.inputs.count == 3)
                // The report names where the credentials came from, never the secret.
                #expect(report.settings["inputs.s3.credentials"]?.contains("AWS_ACCESS_KEY_ID") == true)
                let text = try String(contentsOfFile: "\(dir)/run/state/report.json", encoding: .utf8)
                #expect(!text.contains(S3Moto.secret))
            }
        }

        @Test func aConnectionResetMidObjectResumesWithARangeRequestAndDeliversEveryEventOnce() async throws {
            let moto = try S3Moto.shared
            let file = try writeEventsFile(dir, "reset.ndjson", s3Events("reset", count: 5000))
            try await moto.put(bucket: "reset-bucket", ["r/events.ndjson": file])
            let proxy = try await FaultProxy.start(
                upstreamPort: moto.port, fault: .cut, afterBytes: 300_000,
                target: .wholeObject(requestLine: "GET /reset-bucket/r/events.ndjson ", refuseReopens: false))
            try await RunTarget.run(dir: dir) { target in
                let config = try writeS3RunConfig(dir: "\(dir)/run", url: target.url, moto: moto, endpoint: proxy.endpoint)
                let report = try await replayS3(
                    config: config, inputs: ["s3://reset-bucket/r/events.ndjson"], environment: moto.environment(home: dir))
                try await proxy.stop()
                #expect(report.status == .completed, "\(report.stopReason ?? "")")
                #expect(proxy.faulted)
                let ranges = proxy.requests.compactMap { request -> UInt64? in
                    guard request.hasPrefix("GET /reset-bucket/r/events.ndjson "),
                        let line = request.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("range: bytes=") })
                    else { return nil }
                    return UInt64(line.dropFirst("range: bytes=".count).split(separator: "-").first ?? "")
                }
                #expect(ranges.contains { $0 > 0 }, "a reopen with Range at the last byte handed on: \(ranges)")
                expectExactlyOnce(try await target.received(), s3EventIds("reset", count: 5000))
            }
        }

        @Test func failuresPastTheRetriesStopTheRunTransientWithItsCheckpointAndTheNextRunFinishes() async throws {
            let moto = try S3Moto.shared
            let file = try writeEventsFile(dir, "flaky.ndjson", s3Events("flaky", count: 5000))
            try await moto.put(bucket: "flaky-bucket", ["f/events.ndjson": file])
            let proxy = try await FaultProxy.start(
                upstreamPort: moto.port, fault: .cut, afterBytes: 400_000,
                target: .wholeObject(requestLine: "GET /flaky-bucket/f/events.ndjson ", refuseReopens: true))
            try await RunTarget.run(dir: dir) { target in
                let config = try writeS3RunConfig(dir: "\(dir)/flaky", url: target.url, moto: moto, endpoint: proxy.endpoint)
                let environment = moto.environment(home: dir)
                let stopped = try await replayS3(config: config, inputs: ["s3://flaky-bucket/f/events.ndjson"], environment: environment)
                try await proxy.stop()
                #expect(stopped.status == .stoppedTransient)
                #expect(stopped.stopReason?.contains("s3://flaky-bucket/f/events.ndjson") == true, "\(stopped.stopReason ?? "")")
                let checkpoint = try #require(readCheckpointMirror("\(dir)/flaky/state")?.inputs["s3://flaky-bucket/f/events.ndjson"])
                #expect(checkpoint.offset > 0 && !checkpoint.completed, "stopped mid-object with its checkpoint")
                let direct = try writeS3RunConfig(dir: "\(dir)/flaky", url: target.url, moto: moto)
                let finished = try await replayS3(config: direct, inputs: ["s3://flaky-bucket/f/events.ndjson"], environment: environment)
                #expect(finished.status == .completed)
                #expect(finished.events.resumedPast > 0)
                // What was in flight when reading stopped may arrive twice (its answer came too late).
                expectExactlyOnce(try await target.received(), s3EventIds("flaky", count: 5000), duplicatesUpTo: 2000)
            }
        }

        @Test func shardsByFileReadEveryObjectOfAPrefixOnceBetweenThem() async throws {
            let moto = try S3Moto.shared
            var objects: [String: String] = [:]
            var ids = Set<String>()
            for i in 0..<12 {
                objects["shards/2024-05-0\(i % 3 + 1)/part-\(i).gz"] = try writeEventsFile(
                    dir, "part-\(i).gz", s3Events("s\(i)", count: 40), gzip: true)
                ids.formUnion(s3EventIds("s\(i)", count: 40))
            }
            try await moto.put(bucket: "shard-bucket", objects)
            try await RunTarget.run(dir: dir) { target in
                let config = try writeS3RunConfig(dir: "\(dir)/run", url: target.url, moto: moto)
                var owned = 0
                for k in 0..<3 {
                    let shard = try Shard(index: k, count: 3, mode: .file)
                    let report = try await replayS3(
                        config: config, inputs: ["s3://shard-bucket/shards/"], environment: moto.environment(home: dir),
                        stateDir: "\(dir)/run/state/\(shard.directoryName)", shard: shard)
                    #expect(report.status == .completed)
                    #expect(report.inputs.count + (report.inputsOfOtherShards ?? 0) == 12)
                    owned += report.inputs.count
                }
                #expect(owned == 12)
                expectExactlyOnce(try await target.received(), ids)
            }
        }
    }
}
