import Foundation
import JSONCore
import Logging
import MetaRouter
import ReplayKit

/// Runs the partition stage in process: every worker of `workers`, one after another.
func partitionInputs(
    config path: String, inputs: [String], output: String, shards: Int, workers: Int, segmentBytes: UInt64 = 16 << 10,
    environment: [String: String] = [:], window: TimeWindow? = nil, scratchParent: String? = nil
) async throws -> [String] {
    let config = try ConfigLoader.load(path: path, environment: environment)
    var logger = Logger(label: "test-partition")
    logger.logLevel = .error
    var summaries: [String] = []
    for w in 0..<workers {
        var options = PartitionOptionsValue(inputs: inputs, output: output, shards: shards, worker: w, workers: workers, window: window)
        options.segmentBytes = segmentBytes
        options.options.scratchParent = scratchParent
        summaries.append(try await Partitioner.run(config: config, options: options, stop: StopSignal(), logger: logger))
    }
    return summaries
}

/// Replays shard `shard` of the partition at `location` in process.
func replayPartition(
    config path: String, location: String, shard: Shard, stateDir: String, environment: [String: String] = [:], limit: Int? = nil
) async throws -> RunReport {
    let config = try ConfigLoader.load(path: path, environment: environment)
    var options = RunOptions(inputs: [])
    options.partitions = location
    options.shard = shard
    options.stateDirectory = stateDir
    options.progress = .off
    options.limit = limit
    var logger = Logger(label: "test-run")
    logger.logLevel = .error
    return try await replayInGroup(config: config, options: options, logger: logger)
}

/// The dead letters of a state directory as `file:line:reason`, the file by its name.
func deadLetterLines(_ stateDir: String) throws -> [String] {
    guard let text = try? String(contentsOfFile: stateDir + "/dead-letter.ndjson", encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { line -> String? in
        guard let o = (try? JSONValue(parsing: String(line)))?.objectValue else { return nil }
        let source = (o["source"]?.stringValue ?? "?").split(separator: "/").last.map(String.init) ?? "?"
        return "\(source):\(o["line"]?.encodedString ?? "?"):\(o["reason"]?.stringValue ?? "?")"
    }
}
