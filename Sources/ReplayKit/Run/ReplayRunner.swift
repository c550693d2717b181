import Foundation
import Logging
@_spi(PerLine) import MetaRouterDelivery
import NIOCore
import NIOPosix
import ReplayConfiguration
import RunReporting
import SystemIO

/// Runs one `mr-replay run`: reads the inputs, enriches each line, delivers the events through
/// the engine, and keeps the checkpoint, the dead-letter file and the report.
public final class ReplayRunner: Sendable {
    let config: ReplayConfig
    let options: RunOptions
    let logger: Logger
    let transport: (any DeliveryTransport)?
    let embeddedCollector: EmbeddedCollectorURL?
    /// Where the delivery transport and the engine run.
    let eventLoopGroup: any EventLoopGroup

    /// Prepares a run; nothing starts until ``run(stop:)``.
    /// - Parameters:
    ///   - embeddedCollector: the base URL of the collector that `ingestion.host: embedded`
    ///     names, which the caller runs; without it, a config that names it is a usage error.
    ///   - eventLoopGroup: where the delivery transport and the engine run (one of its loops).
    public convenience init(
        config: ReplayConfig, options: RunOptions, logger: Logger, embeddedCollector: EmbeddedCollectorURL? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.init(
            config: config, options: options, logger: logger, embeddedCollector: embeddedCollector, transport: nil,
            eventLoopGroup: eventLoopGroup)
    }

    /// Prepares a run that sends through `transport` instead of the HTTP transport (tests).
    package init(
        config: ReplayConfig, options: RunOptions, logger: Logger,
        embeddedCollector: EmbeddedCollectorURL? = nil, transport: (any DeliveryTransport)?,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.config = config
        self.options = options
        self.logger = logger
        self.embeddedCollector = embeddedCollector
        self.transport = transport
        self.eventLoopGroup = eventLoopGroup
    }

    /// The state directory in use.
    public var stateDirectory: String { options.stateDirectory ?? config.stateDir }

    /// The state directory the shards of a sharded run share (it holds their device anonymousId).
    var rootStateDirectory: String {
        guard let shard = options.shard, stateDirectory.hasSuffix("/" + shard.directoryName) else { return stateDirectory }
        return String(stateDirectory.dropLast(shard.directoryName.count + 1))
    }

    /// Runs to the end, or until `stop` is raised (or the calling task is cancelled, which
    /// raises it) or the engine stops, and returns the report (also written to
    /// `<state_dir>/report.json`; when the state directory fails at the end, the report's status
    /// and stop reason say so). Throws only for usage and setup errors, before anything is sent.
    ///
    /// Everything the run starts is a child task of this call: the progress line, the stop
    /// watcher and the checkpoints written while the engine drains. The embedded collector is the
    /// caller's (``EmbeddedCollectorURL``); the run asks for its address once it holds the state
    /// directory. The HTTP clients are the run's: the delivery transport lives as long as the
    /// delivery (``DeliveryTarget/with(config:embeddedURL:collectedPath:eventLoopGroup:_:)``), and
    /// the client of `s3://` inputs and partitions is made when one is read; both are shut down
    /// before this returns.
    public func run(stop: StopSignal = StopSignal()) async throws -> RunReport {
        try await withTaskCancellationHandler {
            try await S3HTTPClient.withClient(eventLoopGroup: eventLoopGroup) { http in
                try await run(stop: stop, http: http)
            }
        } onCancel: {
            stop.request()
        }
    }

    /// ``run(stop:)`` with `http`'s client for the `s3://` inputs and partitions.
    private func run(stop: StopSignal, http: S3HTTPClient) async throws -> RunReport {
        let started = Date()
        let startInstant = ContinuousClock.now
        let lock = try await StateDirectoryLock.acquire(
            directory: stateDirectory, wait: options.waitForStateDirectory, stop: stop, startedAt: started,
            announce: { [logger] in logger.warning("\($0)") })
        defer { withExtendedLifetime(lock) {} }
        let opened =
            options.partitions != nil
            ? try await openPartitionedState(stop: stop, http: http)
            : try openState(started: started, inputs: try await resolveInputs(http: http))
        for warning in opened.plan.warnings { logger.warning("\(warning)") }
        let embeddedURL: String?
        do {
            embeddedURL = try await config.embeddedCollectorURL(from: embeddedCollector)
        } catch {
            opened.identity.close()
            throw error
        }
        var (report, timeline) = try await DeliveryTarget.with(
            config: config, embeddedURL: embeddedURL, collectedPath: opened.state.collectedPath,
            eventLoopGroup: eventLoopGroup
        ) { target in
            try await deliver(opened, target: target, stop: stop, started: started, startInstant: startInstant)
        }
        report.finish(startInstant: startInstant)
        do {
            try opened.state.writePage(ReportPage.render(report: report, timeline: timeline))
        } catch {
            report.warnings.append("cannot write \(opened.state.pagePath): \(error)")
        }
        do {
            try opened.state.writeReport(&report, keep: config.reports.keep)
        } catch {
            report.noteStateFailure("cannot write the report \(opened.state.reportPath): \(error)")
        }
        return report
    }

    /// The state a run opens before it sends anything.
    struct OpenedState {
        let state: StateDirectory
        let identity: IdentityStore
        let checkpoint: Checkpoint
        let plan: ResumePlan
        /// The store `s3://` inputs are read from, when there are any.
        let s3: S3InputStore?
        /// What the acknowledgment log of an earlier run held, folded into ``checkpoint``.
        let fold: AckFold?
        /// In a partitioned run: the store the enricher looks identities up in and learns the
        /// partition's transitions into (a scratch store, rebuilt by every run), and its directory.
        var partitionIdentity: (store: IdentityStore, directory: String)? = nil
    }

    /// The run's inputs, resolved once the state directory is held (an S3 listing is as recent
    /// as the run). With `--shard-by file`, other shards' inputs are left out before any of
    /// their bytes (an object's head included) is read. Throws ``InputError`` or
    /// ``InputFailure`` (nothing was sent).
    private func resolveInputs(http: S3HTTPClient) async throws -> InputResolver.Resolved {
        let keep: (@Sendable (InputSource) -> Bool)?
        if let shard = options.shard, shard.mode == .file { keep = { shard.contains(input: $0) } } else { keep = nil }
        do {
            return try await InputResolver.resolve(
                options.inputs, s3: config.inputs.s3, http: http, keep: keep, records: config.inputs.shaping.readsRecords)
        } catch let error as InputError {
            throw UsageError(error.message)
        }
    }

    /// Opens the state directory, the identity store and the checkpoint, and plans where each
    /// input resumes. Throws a `UsageError` (nothing was sent).
    private func openState(started: Date, inputs resolved: InputResolver.Resolved) throws -> OpenedState {
        try openStateDirectory { state, identity, checkpoint, fold in
            checkpoint.window = try TimeWindow.resolve(
                given: options.window, stored: checkpoint.window, checkpointHasProgress: !options.fresh && checkpoint.hasProgress,
                stateDirectory: state.path)
            var plan = try ResumePlan(
                sources: resolved.sources, checkpoint: checkpoint, fresh: options.fresh, config: config, identity: identity,
                runStartMillis: Int64((started.timeIntervalSince1970 * 1000).rounded(.down)))
            plan.window = checkpoint.window
            plan.inputsOfOtherShards = resolved.leftOut
            plan.warnings = resolved.warnings + plan.warnings
            if options.window == nil, let window = checkpoint.window {
                plan.warnings.append("the run continues the checkpoint's time window: \(window) (counted as filtered outside it)")
            }
            return OpenedState(state: state, identity: identity, checkpoint: checkpoint, plan: plan, s3: resolved.store, fold: fold)
        }
    }

    /// Opens the state directory, its identity store and its checkpoint (``--fresh`` clears it;
    /// the destination is checked; an acknowledgment log is folded in), then lets `plan` make the
    /// run's state from them. Throws a `UsageError` (nothing was sent).
    func openStateDirectory(
        _ plan: (StateDirectory, IdentityStore, inout Checkpoint, AckFold?) throws -> OpenedState
    ) throws -> OpenedState {
        var state = try StateDirectory(path: stateDirectory)
        state.destination = CheckpointDestination(config).encoded
        let identity: IdentityStore
        do {
            let device = try DeviceIdentity.shared(root: rootStateDirectory)
            identity = try IdentityStore(stateDirectory: state.path, deviceAnonymousId: device)
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("cannot open the state in \(state.path) (is another run using it?): \(error)")
        }
        do {
            if options.fresh { try state.clearCheckpoint(identity: identity) }
            try CheckpointDestination.check(config, identity: identity, stateDirectory: state.path)
            var checkpoint = try state.loadCheckpoint(identity: identity)
            // What a run that stopped without a checkpoint had acknowledged is not sent again.
            let fold = options.fresh ? nil : try state.foldAcknowledgments(into: &checkpoint, identity: identity)
            return try plan(state, identity, &checkpoint, fold)
        } catch {
            identity.close()
            throw error
        }
    }
}
