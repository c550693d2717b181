import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// A partition replayed by its N shards sends what one unsharded run sends, field for field and
/// dead letter for dead letter; a partition that cannot be replayed as made stops every shard
/// before it sends anything.
@Suite(.serialized) final class PartitionTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    static let identityYAML = #"enrichment: { identity: { logout_events: ["Signed Out"] } }"#

    /// The cross-shard log in three files (the partition's workers cut between them).
    func writeInputs(lines: Int = 3_000) throws -> [String] {
        let all = ShardScaleOutTests.crossShardLog(lines: lines).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let third = all.count / 3
        return try (0..<3).map { k in
            let path = "\(dir)/in/part-\(k).ndjson"
            try FileManager.default.createDirectory(atPath: "\(dir)/in", withIntermediateDirectories: true)
            let slice = all[(all.startIndex + k * third)..<(k == 2 ? all.endIndex : all.startIndex + (k + 1) * third)]
            try writeFile(path, slice.joined(separator: "\n") + "\n")
            return path
        }
    }

    /// A run config in `dir/name/` sending to `url`.
    func runConfig(_ name: String, url: String, yaml: String = identityYAML) throws -> String {
        try FileManager.default.createDirectory(atPath: "\(dir)/\(name)", withIntermediateDirectories: true)
        return try writeRunConfig(dir: "\(dir)/\(name)", url: url, extra: yaml)
    }

    /// One unsharded run of `inputs` (with the partition's device anonymousId): what it received,
    /// its report and its dead letters.
    func oneRun(
        _ inputs: [String], device: String, yaml: String = identityYAML
    ) async throws -> ([String: JSONObject], RunReport, [String]) {
        try FileManager.default.createDirectory(atPath: "\(dir)/one", withIntermediateDirectories: true)
        try writeFile("\(dir)/one/device-anonymous-id", device)
        return try await RunTarget.run(dir: dir, name: "whole") { whole in
            let config = try runConfig("oneconf", url: whole.url, yaml: yaml)
            let report = try await replay(config: config, inputs: inputs, stateDir: "\(dir)/one")
            return (try await whole.received().events, report, try deadLetterLines("\(dir)/one"))
        }
    }

    @Test(arguments: [2, 4, 16])
    func partitionedShardsSendWhatOneRunSendsFieldForField(shards: Int) async throws {
        let inputs = try writeInputs()
        try await RunTarget.run(dir: dir, name: "sharded") { target in
            let config = try runConfig("conf", url: target.url)
            let summaries = try await partitionInputs(config: config, inputs: inputs, output: "\(dir)/parts", shards: shards, workers: 2)
            #expect(summaries.allSatisfy { $0.contains("finished") }, "\(summaries)")
            var reports: [RunReport] = []
            var deadLetters: [String] = []
            for k in 0..<shards {
                let state = "\(dir)/state/shard-\(k)"
                reports.append(
                    try await replayPartition(config: config, location: "\(dir)/parts", shard: try Shard(index: k, count: shards), stateDir: state))
                deadLetters += try deadLetterLines(state)
            }
            let got = try await target.received()
            let set = try PartitionSet(
                store: try LocalPartitionStore(directory: "\(dir)/parts"), shard: 0, shards: shards,
                config: try ConfigLoader.load(path: config, environment: [:]))
            let (expected, one, oneDeadLetters) = try await oneRun(inputs, device: set.deviceAnonymousId)
            #expect(one.events.delivered > 2_000 && one.events.deadLettered > 300 && one.events.consentDropped > 0)
            #expect(got.copies.values.allSatisfy { $0 == 1 }, "no event is sent twice")
            #expect(got.events.count == expected.count, "\(got.events.count) of \(expected.count) events")
            let differing = expected.filter { got.events[$0.key] != $0.value }
            #expect(differing.isEmpty, "\(differing.count) events differ, e.g. \(differing.first.map { "\($0.value)" } ?? "")")
            #expect(deadLetters.sorted() == oneDeadLetters.sorted(), "each dead letter is one shard's, named by its file and line")
            #expect(reports.map(\.events.delivered).reduce(0, +) == one.events.delivered)
            #expect(reports.map(\.events.consentDropped).reduce(0, +) == one.events.consentDropped)
            #expect(reports.map(\.events.read).reduce(0, +) == one.events.read)
            #expect(reports.map(\.events.skippedBlank).reduce(0, +) == one.events.skippedBlank)
            for (k, r) in reports.enumerated() {
                #expect(r.status == .completedWithDrops || r.status == .completed, "\(r.stopReason ?? "")")
                #expect(r.shard == "\(k)/\(shards)" && r.shardBy == "partition")
            }
            #expect(reports.filter { $0.events.delivered > 0 }.count == shards, "every shard owns some identities")
            let carried = expected.values.filter { $0["event"]?.stringValue == "Paid" && $0["groupId"] != nil }
            #expect(carried.count > 50, "the log exercises groups read across shards")
        }
    }

    @Test func aStoppedShardResumesAndSendsEachEventOnce() async throws {
        let inputs = try writeInputs()
        try await RunTarget.run(dir: dir, name: "sharded") { target in
            let config = try runConfig("conf", url: target.url)
            _ = try await partitionInputs(config: config, inputs: inputs, output: "\(dir)/parts", shards: 2, workers: 3)
            var reports: [RunReport] = []
            for k in 0..<2 {
                let shard = try Shard(index: k, count: 2)
                let state = "\(dir)/state/shard-\(k)"
                reports.append(try await replayPartition(config: config, location: "\(dir)/parts", shard: shard, stateDir: state, limit: 300))
                reports.append(try await replayPartition(config: config, location: "\(dir)/parts", shard: shard, stateDir: state))
            }
            let got = try await target.received()
            let set = try PartitionSet(
                store: try LocalPartitionStore(directory: "\(dir)/parts"), shard: 0, shards: 2,
                config: try ConfigLoader.load(path: config, environment: [:]))
            let (expected, _, _) = try await oneRun(inputs, device: set.deviceAnonymousId)
            #expect(reports[0].events.delivered == 300 && reports[1].events.resumedPast >= 300, "the second run resumes past the first's")
            #expect(got.copies.values.allSatisfy { $0 == 1 }, "no event is sent twice")
            #expect(got.events == expected, "resumed shards send what one run sends")
        }
    }

    // MARK: - What stops a shard before it sends

    /// A finished partition of the cross-shard log into 2 shards, and a config sending to `target`.
    func partitioned(_ target: RunTarget, yaml: String = identityYAML) async throws -> (config: String, inputs: [String]) {
        let inputs = try writeInputs(lines: 600)
        let config = try runConfig("conf", url: target.url, yaml: yaml)
        _ = try await partitionInputs(config: config, inputs: inputs, output: "\(dir)/parts", shards: 2, workers: 2, segmentBytes: 8 << 10)
        return (config, inputs)
    }

    /// Runs shard 0 and expects it to refuse with a message containing `words`, sending nothing.
    func expectRefusal(_ target: RunTarget, config: String, _ words: String) async throws {
        await #expect {
            _ = try await replayPartition(config: config, location: "\(dir)/parts", shard: try Shard(index: 0, count: 2), stateDir: "\(dir)/s0")
        } throws: { error in
            "\(error)".contains(words)
                || {
                    print("refused with: \(error)"); return false
                }()
        }
        #expect(try await target.received().events.isEmpty, "nothing was sent")
    }

    @Test func aMissingPartStopsTheShard() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (config, _) = try await partitioned(target)
            try FileManager.default.removeItem(atPath: "\(dir)/parts/" + PartitionLayout.transitions(worker: 1, segment: 0))
            try await expectRefusal(target, config: config, "the part is missing")
        }
    }

    @Test func aDamagedPartStopsTheShard() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (config, _) = try await partitioned(target)
            let path = "\(dir)/parts/" + PartitionLayout.part(worker: 0, segment: 0, shard: 0, of: 2)
            var bytes = try #require(FileManager.default.contents(atPath: path))
            bytes[bytes.count / 2] ^= 0x20
            try bytes.write(to: URL(fileURLWithPath: path))
            try await expectRefusal(target, config: config, "checksum does not match")
        }
    }

    @Test func aCutPartStopsTheShard() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (config, _) = try await partitioned(target)
            let path = "\(dir)/parts/" + PartitionLayout.part(worker: 1, segment: 0, shard: 0, of: 2)
            let bytes = try #require(FileManager.default.contents(atPath: path))
            try bytes.prefix(bytes.count - 10).write(to: URL(fileURLWithPath: path))
            try await expectRefusal(target, config: config, "cut short or replaced")
        }
    }

    @Test func aManifestOfAnotherConfigStopsTheShard() async throws {
        try await RunTarget.run(dir: dir) { target in
            _ = try await partitioned(target)
            let other = try runConfig("other", url: target.url, yaml: #"enrichment: { identity: { logout_events: ["Bye"] } }"#)
            try await expectRefusal(target, config: other, "was made with another config")
        }
    }

    @Test func anInputChangedBetweenTheStagesStopsTheShard() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (config, inputs) = try await partitioned(target)
            let handle = try #require(FileHandle(forWritingAtPath: inputs[1]))
            handle.seekToEndOfFile()
            handle.write(Data("{\"type\":\"track\",\"event\":\"Late\",\"anonymousId\":\"x\"}\n".utf8))
            try handle.close()
            try await expectRefusal(target, config: config, "changed since it was partitioned")
        }
    }

    @Test func aWorkerStillRunningIsWaitedForOrReported() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (config, _) = try await partitioned(target)
            try FileManager.default.removeItem(atPath: "\(dir)/parts/" + PartitionLayout.manifest(worker: 1, of: 2))
            await #expect(throws: PartitionNotReady.self) {
                _ = try await replayPartition(config: config, location: "\(dir)/parts", shard: try Shard(index: 0, count: 2), stateDir: "\(dir)/s0")
            }
            #expect(try await target.received().events.isEmpty)
        }
    }

    @Test func aFinishedWorkerRunAgainDoesNothing() async throws {
        try await RunTarget.run(dir: dir) { target in
            let (config, inputs) = try await partitioned(target)
            let manifest = "\(dir)/parts/" + PartitionLayout.manifest(worker: 0, of: 2)
            let before = try FileManager.default.attributesOfItem(atPath: manifest)[.modificationDate] as? Date
            let again = try await partitionInputs(
                config: config, inputs: inputs, output: "\(dir)/parts", shards: 2, workers: 2, segmentBytes: 8 << 10)
            #expect(again.allSatisfy { $0.contains("already finished") }, "\(again)")
            #expect(try FileManager.default.attributesOfItem(atPath: manifest)[.modificationDate] as? Date == before)
            _ = try await target.received()
        }
    }

    @Test func workersShareTheInputsByContiguousRunsOfAboutEqualBytes() {
        let sizes: [UInt64] = [10, 10, 10, 10, 40, 5, 5, 5, 5, 100, 1, 1]
        for workers in 1...6 {
            let ranges = (0..<workers).map { PartitionSettings.inputRange(worker: $0, of: workers, sizes: sizes) }
            #expect(ranges.flatMap { Array($0) } == Array(sizes.indices), "each input once, in order, for \(workers) workers")
        }
        let halves = (0..<2).map { PartitionSettings.inputRange(worker: $0, of: 2, sizes: [UInt64](repeating: 7, count: 16)) }
        #expect(halves == [0..<8, 8..<16])
    }

    @Test func theShardsShareTheRateBudgetByTheirLines() async throws {
        try await RunTarget.run(dir: dir) { target in
            let loaded = try ConfigLoader.load(path: try await partitioned(target).config, environment: [:])
            var configuration = try loaded.deliveryConfiguration(host: "http://127.0.0.1:1")
            configuration.eventsPerSecond = 1000
            #expect(ReplayRunner.sharingRate(configuration, partition: nil).eventsPerSecond == 1000)
            let store = try LocalPartitionStore(directory: "\(dir)/parts")
            let sets = try (0..<2).map { try PartitionSet(store: store, shard: $0, shards: 2, config: loaded) }
            let rates = sets.map { ReplayRunner.sharingRate(configuration, partition: $0).eventsPerSecond }
            #expect(abs(rates.reduce(0, +) - 1000) < 0.001, "the shards together get the budget: \(rates)")
            #expect(rates.allSatisfy { $0 > 300 }, "each gets its lines' share: \(rates)")
            #expect(sets[0].shardLines + sets[1].shardLines == sets[0].totalLines)
            _ = try await target.received()
        }
    }
}
