import Collector
import Foundation
import Logging
import MetaRouter

/// Runs one `mr-replay run`: reads the inputs, enriches each line, delivers the events through
/// the engine, and keeps the checkpoint, the dead-letter file and the report.
public final class ReplayRunner: Sendable {
    let config: ReplayConfig
    let options: RunOptions
    let logger: Logger
    let transport: (any DeliveryTransport)?

    /// Prepares a run. `transport` replaces the HTTP transport (tests only).
    public init(config: ReplayConfig, options: RunOptions, logger: Logger, transport: (any DeliveryTransport)? = nil) {
        self.config = config
        self.options = options
        self.logger = logger
        self.transport = transport
    }

    /// The state directory in use.
    public var stateDirectory: String { options.stateDirectory ?? config.stateDir }

    /// The state directory the shards of a sharded run share (it holds their device anonymousId).
    var rootStateDirectory: String {
        guard let shard = options.shard, stateDirectory.hasSuffix("/" + shard.directoryName) else { return stateDirectory }
        return String(stateDirectory.dropLast(shard.directoryName.count + 1))
    }

    /// Runs to the end, or until `stop` is raised or the engine stops, and returns the report
    /// (also written to `<state_dir>/report.json`; when the state directory fails at the end,
    /// the report's status and stop reason say so). Throws only for usage and setup errors,
    /// before anything is sent.
    public func run(stop: StopSignal = StopSignal()) async throws -> RunReport {
        let started = Date()
        let startInstant = ContinuousClock.now
        var state = try StateDirectory(path: stateDirectory)
        state.destination = CheckpointDestination(config).encoded
        let sources = try InputResolver.resolve(options.inputs)
        let identity: IdentityStore
        do {
            let device = try DeviceIdentity.shared(root: rootStateDirectory)
            identity = try IdentityStore(stateDirectory: state.path, deviceAnonymousId: device)
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("cannot open the state in \(state.path) (is another run using it?): \(error)")
        }
        let checkpoint: Checkpoint
        let plan: ResumePlan
        do {
            if options.fresh { try state.clearCheckpoint(identity: identity) }
            try CheckpointDestination.check(config, identity: identity, stateDirectory: state.path)
            checkpoint = try state.loadCheckpoint(identity: identity)
            plan = try ResumePlan(
                sources: sources, checkpoint: checkpoint, fresh: options.fresh, config: config, identity: identity,
                runStartMillis: Int64((started.timeIntervalSince1970 * 1000).rounded(.down)))
        } catch {
            identity.close()
            throw error
        }
        for warning in plan.warnings { logger.warning("\(warning)") }

        let target = try await DeliveryTarget.start(config: config, stateDirectory: state.path, logger: logger)
        let deliveryConfig: DeliveryConfiguration
        do {
            deliveryConfig = try target.deliveryConfiguration(config)
        } catch {
            try? await target.shutdown()
            throw UsageError("\(config.sourcePath ?? "config"): \(error)")
        }
        let runState = RunState(inputs: plan.paths, deadLetters: try DeadLetterWriter(path: state.deadLetterPath))
        runState.counters.withLock { c in
            c.report.startedAt = MetaRouter.Timestamp.iso8601(started)
            c.report.destination = target.description
            c.report.deadLetterFile = state.deadLetterPath
            c.report.shard = options.shard?.description
            c.report.settings = config.reportSettings
            c.bytesTotal = plan.totalBytes
            c.report.warnings = plan.warnings
            for (k, input) in plan.inputs.enumerated() {
                c.report.events.resumedPast += input.resumeAt.map { $0.lineNumber - 1 } ?? 0
                c.perInput[k].checkpointLine = (input.resumeAt?.lineNumber ?? 1) - 1
                c.perInput[k].restarted = input.restarted
            }
        }
        let engine = DeliveryEngine(
            configuration: deliveryConfig, transport: transport ?? target.transport, logger: logger,
            onOutcomes: { runState.apply($0) })
        let progressTask = ProgressReporter(mode: options.progress, state: runState, logger: logger) {
            await engine.stats.batchesRetried
        }.start()
        let stopWatcher = Task {
            while !Task.isCancelled, !stop.isRequested { try? await Task.sleep(for: .milliseconds(50)) }
            if stop.isRequested { _ = await engine.cancel(grace: options.stopGrace) }
        }

        let pipe = ChunkPipe()
        let job = ReadingJob(
            config: config, options: options, plan: plan, state: state, runState: runState,
            identity: identity, checkpoint: checkpoint, stop: stop, pipe: pipe,
            onWarning: { [logger] in logger.warning("\($0)") })
        async let readOutcome = ReadingJob.onThread { try job.read() }
        for await chunks in pipe.stream {
            defer { pipe.taken() }
            // One actor hop per chunk; fewer accepted than given means the engine stopped.
            for chunk in chunks where !pipe.isClosed {
                if await engine.submit(chunk: chunk) < chunk.entries.count { pipe.close() }
            }
        }
        let early: (RunReport.Status, String)?
        do {
            early = try await readOutcome
        } catch {
            _ = await engine.cancel(grace: options.stopGrace)
            early = (.stoppedTransient, "reading or checkpointing failed: \(error)")
        }

        // Drain, writing checkpoints while the engine settles what is in flight.
        let drainCheckpoints = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: options.checkpointInterval)
                if !Task.isCancelled { try? job.saveCheckpoint() }
            }
        }
        let stats = early == nil && !stop.isRequested
            ? await engine.finish() : await engine.cancel(grace: options.stopGrace)
        drainCheckpoints.cancel()
        _ = await drainCheckpoints.result
        let engineStop = await engine.stopCause
        stopWatcher.cancel()
        progressTask.cancel()
        _ = await progressTask.result
        // Events were sent: from here on the run ends with a report, even when the state
        // directory fails (the report says so, and the exit status asks for a retry).
        var stateFailure: String?
        do {
            try job.saveCheckpoint()
        } catch {
            stateFailure = "cannot save the checkpoint in \(state.path): \(error)"
        }
        identity.close()
        do {
            try runState.deadLetters.withLock { try $0.close() }
        } catch {
            stateFailure = stateFailure ?? "cannot write the dead-letter file \(state.deadLetterPath): \(error)"
        }
        try? await target.shutdown()  // the HTTP client and its thread, and an embedded collector

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
        report.apply(stats)
        report.privacy = job.enricher.stats.privacyCounts
        // A dead letter that could not be written (its event stays pending) stops the run even
        // when it happened after reading was done.
        let deadLetterFailure = runState.counters.withLock { $0.deadLetterError }
        report.classify(
            early: early ?? deadLetterFailure.map { (.stoppedTransient, $0) }, stopRequested: stop.isRequested,
            engineStop: engineStop)
        if let stateFailure { report.noteStateFailure(stateFailure) }
        let elapsed = ContinuousClock.now - startInstant
        report.durationSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        report.throughput.eventsPerSecond =
            report.durationSeconds > 0 ? (Double(report.events.delivered) / report.durationSeconds).rounded() : 0
        report.finishedAt = MetaRouter.Timestamp.iso8601(Date())
        do {
            try state.writeReport(report)
        } catch {
            report.noteStateFailure("cannot write the report \(state.reportPath): \(error)")
        }
        return report
    }
}

extension RunReport {
    /// Copies the engine's counters into the report.
    mutating func apply(_ stats: DeliveryStats) {
        batches.sent = stats.batchesSent
        batches.succeeded = stats.batchesSucceeded
        batches.retried = stats.batchesRetried
        batches.split = stats.batchesSplit
        responses = stats.responses
        breaker.opened = stats.breakerOpened
    }

    /// The state directory failed after events were sent. A run that would have completed asks
    /// for a retry (`stopped_transient`, exit 75); one that already stopped keeps its status
    /// (a fatal answer stays fatal) and the failure is added to its reason.
    mutating func noteStateFailure(_ reason: String) {
        switch status {
        case .completed, .completedWithDrops:
            status = .stoppedTransient
            stopReason = reason
        case .interrupted, .stoppedTransient, .failedFatal:
            stopReason = [stopReason, reason].compactMap { $0 }.joined(separator: "; ")
        }
    }

    /// Sets `status` and `stopReason` from how the run ended.
    mutating func classify(early: (Status, String)?, stopRequested: Bool, engineStop: StopCause?) {
        switch (early, engineStop) {
        case (.some(let (status, reason)), _):
            self.status = status
            stopReason = reason
        case (nil, .fatalStatus(let code)?):
            status = .failedFatal
            stopReason = "the destination answered \(code): check the write key, host and path"
        case (nil, .retriesExhausted(let why)?):
            status = .stoppedTransient
            stopReason = why
        case (nil, .cancelled?):
            status = .interrupted
            stopReason = stopRequested ? "stopped by a signal" : "delivery was cancelled"
        case (nil, nil):
            status = events.deadLettered > 0 ? .completedWithDrops : .completed
        }
    }
}
