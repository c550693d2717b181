import Foundation
import JSONCore
import ReplayKit
import ServerTesting
import TestSupport
import Testing

/// A vendor's export is partitioned as its events: a record of several events whose events
/// belong to different shards, and teach identities between each other, is replayed by its
/// shards as one run replays it.
extension PartitionTests {
    /// The cross-shard log as RudderStack archiver jobs of one to five events each (so that a
    /// job holds identify, alias, group and logout events between the events they teach). The
    /// lines that are no JSON object are left as they are, and the events the recipe refuses
    /// (an alias without previousId, no id, a bad timestamp, an escaped key) are jobs of their own: the recipe refuses them,
    /// and would refuse a whole job holding one.
    func writeRudderStackJobs() throws -> [String] {
        let all = ShardScaleOutTests.crossShardLog(lines: 3_000).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        var jobs: [String] = []
        var batch: [Substring] = []
        var size = 1
        func flush() {
            size = size % 5 + 1
            guard !batch.isEmpty else { return }
            jobs.append(#"{"userId":"","payload":{"batch":[\#(batch.joined(separator: ","))],"writeKey":"k"},"messageId":""}"#)
            batch = []
        }
        for (n, line) in all.enumerated() {
            guard (try? JSONValue(parsing: String(line)))?.objectValue != nil else {
                flush()
                jobs.append(String(line))
                continue
            }
            let alone = [3, 9, 12, 14].contains(n % 24)
            if alone { flush() }
            batch.append(line)
            if alone || batch.count == size { flush() }
        }
        flush()
        try FileManager.default.createDirectory(atPath: "\(dir)/in", withIntermediateDirectories: true)
        let half = jobs.count / 2
        return try [jobs[..<half], jobs[half...]].enumerated().map { k, slice in
            let path = "\(dir)/in/jobs-\(k).ndjson"
            try writeFile(path, slice.joined(separator: "\n") + "\n")
            return path
        }
    }

    @Test(arguments: [2, 4])
    func aPartitionedVendorExportSendsWhatOneRunSends(shards: Int) async throws {
        let inputs = try writeRudderStackJobs()
        let yaml =
            Self.identityYAML + """

                inputs: { from: rudderstack }
                transform:
                  - drop: {event: Opened}
                  - set: {path: context.library.name, value: migration}
                """
        try await RunTarget.run(dir: dir, name: "sharded") { target in
            let config = try runConfig("conf", url: target.url, yaml: yaml)
            _ = try await partitionInputs(config: config, inputs: inputs, output: "\(dir)/parts", shards: shards, workers: 2, segmentBytes: 8 << 10)
            var reports: [RunReport] = []
            var deadLetters: [String] = []
            for k in 0..<shards {
                let state = "\(dir)/state/shard-\(k)"
                let shard = try Shard(index: k, count: shards)
                reports.append(try await replayPartition(config: config, location: "\(dir)/parts", shard: shard, stateDir: state, limit: 100))
                reports.append(try await replayPartition(config: config, location: "\(dir)/parts", shard: shard, stateDir: state))
                deadLetters += try deadLetterLines(state)
            }
            let got = try await target.received()
            let set = try PartitionSet(
                store: try LocalPartitionStore(directory: "\(dir)/parts"), shard: 0, shards: shards,
                config: try ConfigLoader.load(path: config, environment: [:]))
            let (expected, one, oneDeadLetters) = try await oneRun(inputs, device: set.deviceAnonymousId, yaml: yaml)
            #expect(one.events.delivered > 1_500 && one.events.deadLettered > 200 && one.events.filtered > 100, "\(one.events)")
            #expect(got.copies.values.allSatisfy { $0 == 1 }, "no event is sent twice")
            #expect(got.events.count == expected.count, "\(got.events.count) of \(expected.count) events")
            let differing = expected.filter { got.events[$0.key] != $0.value }
            #expect(differing.isEmpty, "\(differing.count) events differ, e.g. \(differing.first.map { "\($0.value)" } ?? "")")
            #expect(deadLetters.sorted() == oneDeadLetters.sorted())
            #expect(reports.map(\.events.filtered).reduce(0, +) == one.events.filtered, "records without events, dropped events")
            let carried = expected.values.filter { $0["event"]?.stringValue == "Paid" && $0["groupId"] != nil }
            #expect(carried.count > 50, "groups learned inside jobs, across shards")
            #expect(expected.values.allSatisfy { $0["context"]?.objectValue?["library"]?.objectValue?["name"]?.stringValue == "migration" })
        }
    }
}
