import Foundation
import ReplayConfiguration
import RunReporting

/// One view of a partitioned backfill: every worker of the partition stage and every replaying
/// shard, read from the partition's location, which they all report to (`mr-replay status
/// --partitions`).
package struct PartitionStatus: Codable, Sendable, Equatable {
    /// A worker of the partition stage.
    package struct Worker: Codable, Sendable, Equatable {
        package var worker: Int
        /// `finished`, `running` (some segments published), or `not started`.
        package var state: String
        package var segments: Int
        package var inputs: Int
        package var lines: Int
    }

    /// A replaying shard, as it last reported (``ShardReport``).
    package var location: String
    package var shards: Int?
    package var workers: [Worker]
    package var shardReports: [ShardReport]
    /// Totals over the shards.
    package var delivered: Int
    package var deadLettered: Int
    package var shardsFinished: Int

    enum CodingKeys: String, CodingKey {
        case location, shards, workers, delivered
        case shardReports = "shard_reports"
        case deadLettered = "dead_lettered"
        case shardsFinished = "shards_finished"
    }

    /// Reads the status of the partition at `location` (a directory, or an `s3://` prefix read
    /// with `config`'s `inputs.s3` and `http`'s client). Blocks: call it from a thread of its own,
    /// not a task.
    package static func read(location: String, config: ReplayConfig, http: S3HTTPClient) throws -> PartitionStatus {
        if !location.hasPrefix("s3://"), !FileManager.default.fileExists(atPath: location) {
            throw UsageError("no partition at \(location)")
        }
        return try read(try Partitioner.makeStore(location, config: config, s3: nil, http: http))
    }

    /// ``read(location:config:http:)`` on a thread of its own.
    package static func readOnThread(location: String, config: ReplayConfig, http: S3HTTPClient) async throws
        -> PartitionStatus
    {
        try await ReadingJob.onThread { try read(location: location, config: config, http: http) }
    }

    /// Reads the status of the partition at `store` (blocks: call from a thread of its own).
    static func read(_ store: any PartitionStore) throws -> PartitionStatus {
        let manifests = try PartitionSet.manifests(store)
        // Before any worker finished, the workers' count is in their progress files' names.
        let named = try progressNames(store).compactMap { name in name.split(separator: "-").last.flatMap { Int($0.dropLast(5)) } }
        let workerCount = manifests.first?.workers ?? named.max() ?? 0
        var workers: [Worker] = []
        for w in 0..<workerCount {
            if let m = manifests.first(where: { $0.worker == w }) {
                workers.append(Worker(worker: w, state: "finished", segments: m.segments.count, inputs: m.inputs.count, lines: lines(m.segments)))
            } else if let bytes = try store.get(PartitionLayout.progress(worker: w, of: workerCount)),
                let p = try? JSONDecoder().decode(PartitionProgress.self, from: Data(bytes))
            {
                workers.append(Worker(worker: w, state: "running", segments: p.segments.count, inputs: p.inputs.count, lines: lines(p.segments)))
            } else {
                workers.append(Worker(worker: w, state: "not started", segments: 0, inputs: 0, lines: 0))
            }
        }
        let reports = try store.list(PartitionLayout.statusFolder).compactMap { name -> ShardReport? in
            guard let bytes = try store.get(name) else { return nil }
            return try? JSONDecoder().decode(ShardReport.self, from: Data(bytes))
        }.sorted { $0.shard < $1.shard }
        return PartitionStatus(
            location: store.location, shards: manifests.first?.shards ?? reports.first?.shards, workers: workers, shardReports: reports,
            delivered: reports.reduce(0) { $0 + $1.delivered }, deadLettered: reports.reduce(0) { $0 + $1.deadLettered },
            shardsFinished: reports.filter(\.finished).count)
    }

    private static func lines(_ segments: [PartitionManifest.Segment]) -> Int {
        segments.reduce(0) { $0 + $1.parts.reduce(0) { $0 + $1.records } }
    }

    private static func progressNames(_ store: any PartitionStore) throws -> [String] {
        try store.list("progress/")
    }

    /// The status as text.
    package var text: String {
        var out = ["partition: \(location)" + (shards.map { " (\($0) shards, \(workers.count) workers)" } ?? "")]
        for w in workers {
            out.append(
                "  worker \(w.worker)/\(workers.count): \(w.state)"
                    + (w.segments > 0 ? ": \(w.segments) segments, \(w.inputs) inputs, \(w.lines) lines" : ""))
        }
        let reported = Set(shardReports.map(\.shard))
        for r in shardReports { out.append("  " + r.line) }
        if let shards {
            let silent = (0..<shards).filter { !reported.contains($0) }
            if !silent.isEmpty {
                out.append(
                    "  shards not started: " + silent.prefix(20).map { "\($0)/\(shards)" }.joined(separator: ", ")
                        + (silent.count > 20 ? ", ..." : ""))
            }
        }
        out.append(
            "total: \(CountText.of(delivered)) delivered, \(CountText.of(deadLettered)) dead-lettered; \(shardsFinished) of \(shards ?? shardReports.count) shards finished"
        )
        return out.joined(separator: "\n") + "\n"
    }
}

/// What a replaying shard reports to its partition (`status/shard-K-of-N.json`): when it
/// starts, every ten seconds, and when it ends.
package struct ShardReport: Codable, Sendable, Equatable {
    package var shard: Int
    package var shards: Int
    package var host: String
    package var stateDirectory: String
    /// The shard's lines, and how many it has settled (delivered, dead-lettered, filtered, blank).
    package var lines: Int
    package var settled: Int
    package var delivered: Int
    package var deadLettered: Int
    package var pending: Int
    /// `running`, or the run's status once it ended.
    package var state: String
    package var finished: Bool
    package var updatedAt: String

    enum CodingKeys: String, CodingKey {
        case shard, shards, host, lines, settled, delivered, pending, state, finished
        case stateDirectory = "state_dir"
        case deadLettered = "dead_lettered"
        case updatedAt = "updated_at"
    }

    /// `shard 2/4: running: 31,000 of 62,500 lines (49.6 %), 30,900 delivered, 12 dead-lettered (host, updated ...)`.
    var line: String {
        let percent = lines > 0 ? String(format: " (%.1f %%)", Double(settled) / Double(lines) * 100) : ""
        return
            "shard \(shard)/\(shards): \(state): \(CountText.of(settled)) of \(CountText.of(lines)) lines\(percent), \(CountText.of(delivered)) delivered, "
            + "\(CountText.of(deadLettered)) dead-lettered" + (pending > 0 ? ", \(CountText.of(pending)) pending" : "") + " (\(host), \(updatedAt))"
    }
}
