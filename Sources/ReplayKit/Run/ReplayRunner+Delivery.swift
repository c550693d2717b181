import Foundation
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration
import RunReporting
import Synchronization
import SystemIO
import Timestamps

extension ReplayRunner {
    /// Sends every event of the plan to `target` and returns the report (without its timing).
    /// Closes the identity store and the dead-letter file (the target's transport is its
    /// owner's, ``DeliveryTarget/with(config:embeddedURL:collectedPath:eventLoopGroup:_:)``).
    func deliver(
        _ opened: OpenedState, target: DeliveryTarget, stop: StopSignal, started: Date, startInstant: ContinuousClock.Instant
    ) async throws -> (RunReport, RunTimeline) {
        let deliveryConfig: DeliveryConfiguration
        let runState: RunState
        do {
            deliveryConfig = try Self.sharingRate(target.deliveryConfiguration(config), partition: opened.plan.partition)
            runState = RunState(
                inputs: opened.plan.paths, deadLetters: try DeadLetterWriter(path: opened.state.deadLetterPath, maxBytes: config.deadLetter.maxBytes),
                journalPath: opened.state.journalPath, acks: AckLog(directory: opened.state.ackDirectory, inputs: opened.plan.ackInputs))
        } catch {
            opened.identity.close()
            throw error is UsageError ? error : UsageError("\(config.sourcePath ?? "config"): \(error)")
        }
        startReport(runState, opened: opened, target: target, started: started)
        let engine = target.engine(configuration: deliveryConfig, override: transport, logger: logger) { runState.apply($0) }
        let (run, deadLetterFile) = (Timestamp.iso8601(started), opened.state.deadLetterPath)
        await engine.observeBatches { runState.record($0, run: run, deadLetterFile: deadLetterFile) }
        let pipe = ChunkPipe()
        let job = ReadingJob(
            config: config, options: options, plan: opened.plan, state: opened.state, runState: runState,
            identity: opened.identity, checkpoint: opened.checkpoint, stop: stop, pipe: pipe,
            partitionIdentity: opened.partitionIdentity?.store, onWarning: { [logger] in logger.warning("\($0)") })
        let progress = ProgressReporter(mode: options.progress, state: runState, logger: logger) {
            await engine.stats.batchesRetried
        }
        let (grace, checkpointInterval) = (options.stopGrace, options.checkpointInterval)
        // A stop wakes a read blocked on the network (a stalled S3 object) at once.
        if let s3 = opened.s3 { stop.whenRequested { s3.cancellation.cancel() } }
        // The engine runs while the run feeds it; a stop cancels it (in-flight batches get the
        // grace period, the rest stay pending), and so does a cancellation of the run's task,
        // whose handler raises the stop. Otherwise it finishes once the reader is done.
        let (early, stats, engineStop) = await withTaskGroup(of: Void.self) { helpers in
            helpers.addTask { await progress.run() }
            helpers.addTask { await Self.sampleTimeline(runState, engine: engine, since: startInstant) }
            if let partition = opened.plan.partition {
                let directory = opened.state.path
                helpers.addTask { await Self.reportShardProgress(runState, partition: partition, stateDirectory: directory) }
            }
            let (early, stats) = await engine.run(stop: stop, onStop: .cancel(grace: grace)) {
                let early = await feed(job: job, engine: engine, pipe: pipe)
                // The reader is done: checkpoints go on being written while the engine settles.
                helpers.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: checkpointInterval)
                        if !Task.isCancelled { try? job.saveCheckpoint() }
                    }
                }
                return (early, early == nil && !stop.isRequested ? .finish : .cancel)
            }
            helpers.cancelAll()
            await helpers.waitForAll()
            return (early, stats, await engine.stopCause)
        }
        runState.sample(seconds: Self.seconds(since: startInstant), engine: stats, force: true)
        var report = await endReport(
            job: job, runState: runState, opened: opened, target: target, ending: (stats, early, engineStop), stop: stop)
        report.resources = await resources(runState, target: target)
        return (report, runState.timeline.withLock { $0 })
    }

    /// The run's report once the engine stopped: the last checkpoint written and the state
    /// closed (``closeRun(job:runState:opened:target:)``), the engine's figures, the problem
    /// batches, the enrichment and acknowledgment counts, and how the run ended. A shard of a
    /// partition reports it to the partition as well.
    private func endReport(
        job: ReadingJob, runState: RunState, opened: OpenedState, target: DeliveryTarget,
        ending: (stats: DeliveryStats, early: (RunReport.Status, String)?, engineStop: StopCause?), stop: StopSignal
    ) async -> RunReport {
        var (report, stateFailure) = await closeRun(job: job, runState: runState, opened: opened, target: target)
        report.apply(ending.stats)
        runState.journal.withLock { journal in
            report.batches.problems = journal.kept
            report.batches.problemsOmitted = journal.omitted
            report.batches.problemSummary = journal.tally.summary
            if !journal.kept.isEmpty { report.batches.journal = journal.path }
            if let failure = journal.failure { report.warnings.append(failure) }
        }
        report.privacy = job.enricher.stats.privacyCounts
        report.acknowledgments = Self.acknowledgments(runState, fold: opened.fold, warnings: &report.warnings)
        // A dead letter that could not be written (its event stays pending) stops the run even
        // when it happened after reading was done.
        let deadLetterFailure = runState.counters.withLock { $0.deadLetterError }
        report.classify(
            early: ending.early ?? deadLetterFailure.map { (.stoppedTransient, $0) }, stopRequested: stop.isRequested,
            engineStop: ending.engineStop)
        if let stateFailure { report.noteStateFailure(stateFailure) }
        if let partition = opened.plan.partition {
            await Self.publishShardReport(
                runState, partition: partition, stateDirectory: opened.state.path, state: report.status.rawValue,
                finished: report.status == .completed || report.status == .completedWithDrops)
        }
        return report
    }

    /// The run's CPU and memory so far, with the reading thread's CPU and, when the run sent
    /// over the HTTP transport, its event loop thread's.
    private func resources(_ runState: RunState, target: DeliveryTarget) async -> RunReport.Resources {
        var delivery: CPUUsage?
        if transport == nil, let loop = target.transport.eventLoop {
            delivery = try? await loop.submit { CPUUsage.currentThread() }.get()
        }
        return .measured(readingThread: runState.counters.withLock { $0.readingThreadCPU }, deliveryThread: delivery)
    }

    /// `configuration` with, for a shard of `partition`, its share of the destination's rate
    /// budget: `rate_limit.events_per_second` in proportion to the lines the shard owns, so the
    /// shards together stay within it (see docs/scale-out.md, "One destination budget").
    package static func sharingRate(_ configuration: DeliveryConfiguration, partition: PartitionSet?) -> DeliveryConfiguration {
        guard let partition, configuration.eventsPerSecond > 0, partition.totalLines > 0 else { return configuration }
        var shared = configuration
        shared.eventsPerSecond = max(1, configuration.eventsPerSecond * Double(partition.shardLines) / Double(partition.totalLines))
        return shared
    }

    /// The report's acknowledgment-log counts, and a warning when the log could not be written.
    static func acknowledgments(_ runState: RunState, fold: AckFold?, warnings: inout [String]) -> RunReport.Acknowledgments {
        var counts = RunReport.Acknowledgments()
        counts.foldedLines = fold?.lines ?? 0
        counts.foldedMessageIds = fold?.messageIds ?? 0
        runState.counters.withLock { c in
            guard let acks = c.acks else { return }
            counts.linesLogged = acks.linesWritten
            counts.logBytes = acks.bytesWritten
            if let failure = acks.failure { warnings.append(failure) }
        }
        return counts
    }

    /// Samples the run's counters for its timeline about once a second, until cancelled.
    static func sampleTimeline(_ runState: RunState, engine: DeliveryEngine, since start: ContinuousClock.Instant) async {
        runState.sample(seconds: 0, engine: DeliveryStats())
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if Task.isCancelled { break }
            runState.sample(seconds: seconds(since: start), engine: await engine.stats)
        }
    }

    /// Seconds from `start` to now.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Runs the reader on its thread and hands the chunks it sends to the engine. Returns why
    /// reading stopped early, if it did.
    ///
    /// The reader is one dedicated thread, not a task: it parses and enriches every line in a
    /// tight synchronous loop (and blocks on the pipe for backpressure), which would otherwise
    /// hold one of the concurrency pool's few threads. Measured, this is the fastest design.
    private func feed(job: ReadingJob, engine: DeliveryEngine, pipe: ChunkPipe) async -> (RunReport.Status, String)? {
        async let readOutcome = ReadingJob.onThread { try job.read() }
        // On the engine's event loop: taking a chunk and handing it over is no thread hop.
        await withTaskExecutorPreference(engine.laneExecutor) {
            for await chunks in pipe.stream {
                defer { pipe.taken() }
                // One actor hop per chunk; fewer accepted than given means the engine stopped.
                for chunk in chunks where !pipe.isClosed {
                    if await engine.submit(chunk: chunk) < chunk.entries.count { pipe.close() }
                }
            }
        }
        pipe.close()  // the stream ended early when this task was cancelled: the reader stops too
        do {
            return try await readOutcome
        } catch {
            _ = await engine.cancel(grace: options.stopGrace)
            return Self.readingFailure(error, stopRequested: job.stop.isRequested)
        }
    }

    /// Fills in the report's header before anything is read.
    private func startReport(_ runState: RunState, opened: OpenedState, target: DeliveryTarget, started: Date) {
        let plan = opened.plan
        runState.counters.withLock { c in
            c.report.startedAt = Timestamp.iso8601(started)
            c.report.runId = RunHistory.makeRunId()
            c.report.destination = target.description
            c.report.deadLetterFile = opened.state.deadLetterPath
            c.report.shard = options.shard?.description
            c.report.shardBy = plan.partition == nil ? options.shard?.mode.rawValue : "partition"
            if options.shard?.mode == .file { c.report.inputsOfOtherShards = plan.inputsOfOtherShards }
            c.report.settings = config.reportSettings
            c.report.settings.merge(opened.s3?.reportSettings ?? [:]) { _, store in store }
            c.report.settings["dead_letter.max_bytes"] = String(config.deadLetter.maxBytes)
            if let window = plan.window {
                c.report.settings["run.since"] = window.sinceMillis.map { Timestamp.iso8601(epochMillis: $0) }
                c.report.settings["run.until"] = window.untilMillis.map { Timestamp.iso8601(epochMillis: $0) }
            }
            if let limit = options.limit { c.report.settings["run.limit"] = String(limit) }
            c.bytesTotal = plan.totalBytes
            c.report.warnings = plan.warnings
            for (k, input) in plan.inputs.enumerated() {
                // A partitioned run counts its own lines it skips as it reads them.
                if plan.partition == nil { c.report.events.resumedPast += input.resumeAt.map { $0.lineNumber - 1 } ?? 0 }
                c.perInput[k].checkpointLine = (input.resumeAt?.lineNumber ?? 1) - 1
                c.perInput[k].restarted = input.restarted
            }
        }
    }

    /// Writes the last checkpoint, closes the state and the target, and returns the report of
    /// the counters, with how the state directory failed, if it did. Events were sent: from here
    /// on the run ends with a report even when the state directory fails (the report says so,
    /// and the exit status asks for a retry).
    private func closeRun(
        job: ReadingJob, runState: RunState, opened: OpenedState, target: DeliveryTarget
    ) async -> (RunReport, String?) {
        var stateFailure: String?
        do {
            try job.saveCheckpoint()
        } catch {
            stateFailure = "cannot save the checkpoint in \(opened.state.path): \(error)"
        }
        opened.identity.close()
        if let (learned, directory) = opened.partitionIdentity {
            learned.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
        do {
            try runState.deadLetters.withLock { try $0.close() }
        } catch {
            stateFailure = stateFailure ?? "cannot write the dead-letter file \(opened.state.deadLetterPath): \(error)"
        }
        var report = runState.counters.withLock { c -> RunReport in
            var r = c.report
            r.inputs = c.perInput
            r.events.pending = c.inFlightEvents
            return r
        }
        for (k, input) in report.inputs.enumerated() {
            guard let cp = job.checkpoint.inputs[input.path] else { continue }
            report.inputs[k].checkpointOffset = cp.offset
            report.inputs[k].checkpointLine = cp.line
            report.inputs[k].completed = cp.completed
        }
        return (report, stateFailure)
    }
}
