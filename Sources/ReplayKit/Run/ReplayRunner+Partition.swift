import Foundation
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration
import SystemIO
import Timestamps

extension ReplayRunner {
    /// Opens the state of a shard replaying a partition (`--partitions`): the partition, once all
    /// its workers finished (waiting for them up to ``RunOptions/partitionWait``), checked whole
    /// before anything is sent; the shard's state directory and checkpoint; and a scratch
    /// identity store that learns the partition's transitions from the start on every run.
    func openPartitionedState(stop: StopSignal, http: S3HTTPClient) async throws -> OpenedState {
        guard let location = options.partitions, let shard = options.shard else {
            throw UsageError("--partitions needs --shard K/N, or --shards N with JOB_COMPLETION_INDEX")
        }
        let store = try Partitioner.makeStore(location, config: config, s3: nil, http: http)
        if let s3 = store as? S3PartitionStore { stop.whenRequested { s3.store.cancellation.cancel() } }
        let set = try await loadPartition(store, shard: shard, stop: stop)
        if let given = options.window, given != set.window {
            throw UsageError(
                "--since/--until (\(given)) differ from the partition's window (\(set.window.map { "\($0)" } ?? "no window")): "
                    + "a partitioned run replays the window it was partitioned with; drop them")
        }
        let scratch = stateDirectory + "/.partition-identities-\(UUID().uuidString)"
        return try openStateDirectory { state, identity, checkpoint, fold in
            let plan = ResumePlan(partition: set, checkpoint: checkpoint, fresh: options.fresh)
            let learned = try IdentityStore(stateDirectory: scratch, deviceAnonymousId: set.deviceAnonymousId, scratch: true)
            var opened = OpenedState(
                state: state, identity: identity, checkpoint: checkpoint, plan: plan, s3: (store as? S3PartitionStore)?.store, fold: fold)
            opened.partitionIdentity = (learned, scratch)
            return opened
        }
    }

    /// The partition at `store` for `shard`, its parts checked (on a thread: every part is read
    /// once). While workers have not finished, waits up to ``RunOptions/partitionWait``, then
    /// throws ``PartitionNotReady``.
    private func loadPartition(_ store: any PartitionStore, shard: Shard, stop: StopSignal) async throws -> PartitionSet {
        let deadline = ContinuousClock.now + options.partitionWait
        let config = self.config
        while true {
            do {
                return try await ReadingJob.onThread {
                    let set = try PartitionSet(store: store, shard: shard.index, shards: shard.count, config: config)
                    try set.verifyParts()
                    try set.checkInputs()
                    return set
                }
            } catch let notReady as PartitionNotReady {
                guard ContinuousClock.now < deadline, !stop.isRequested else { throw notReady }
                logger.info("\(notReady); waiting")
                let wait = min(Duration.seconds(15), deadline - ContinuousClock.now)
                let stopped = await withTaskGroup(of: Bool.self) { race in
                    race.addTask { await stop.requested() }
                    race.addTask {
                        try? await Task.sleep(for: wait)
                        return false
                    }
                    defer { race.cancelAll() }
                    return await race.next() ?? true
                }
                if stopped { throw notReady }
            }
        }
    }
}

extension ReplayRunner {
    /// Reports the shard's progress to its partition (``ShardReport``) every ten seconds until
    /// cancelled; a report that cannot be written is skipped (the next one may be).
    static func reportShardProgress(_ runState: RunState, partition: PartitionSet, stateDirectory: String) async {
        while !Task.isCancelled {
            await publishShardReport(runState, partition: partition, stateDirectory: stateDirectory, state: "running", finished: false)
            try? await Task.sleep(for: .seconds(10))
        }
    }

    /// Writes the shard's report to its partition now.
    static func publishShardReport(
        _ runState: RunState, partition: PartitionSet, stateDirectory: String, state: String, finished: Bool
    ) async {
        let report = runState.counters.withLock { c in
            let e = c.report.events
            return ShardReport(
                shard: partition.shard, shards: partition.shards, host: ProcessInfo.processInfo.hostName,
                stateDirectory: stateDirectory, lines: partition.shardLines,
                settled: e.read + e.skippedBlank + e.resumedPast - c.inFlightEvents, delivered: e.delivered,
                deadLettered: e.deadLettered, pending: c.inFlightEvents, state: state, finished: finished,
                updatedAt: Timestamp.iso8601(Date()))
        }
        guard let bytes = try? PartitionPlan.encoder.encode(report) else { return }
        let store = partition.store
        let name = PartitionLayout.shardStatus(shard: partition.shard, of: partition.shards)
        _ = try? await ReadingJob.onThread { try store.put(Array(bytes) + [0x0A], as: name) }
    }
}
