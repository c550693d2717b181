import Foundation
import Logging
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration
import Synchronization
import SystemIO

/// `mr-replay dead-letter retry`: sends the dead-lettered events of a state directory again,
/// once the cause was fixed (a server-side rule, a raised size cap, a fixed line), through the
/// same enrichment, privacy rules and delivery engine as a run.
///
/// The files are handled one at a time, oldest first (``DeadLetterFiles``). The records of the
/// reason asked for are enriched again (with their input line number, so a generated messageId
/// is the one the run gave) and sent; then the file is replaced by what remains: delivered
/// events are gone, events that fail again stay in place with their new reason, everything else
/// is kept byte for byte. The new content replaces the file with the file system's atomic write
/// (``FileSystem/writeAtomically(_:_:)``), so a retry killed at any moment leaves each file
/// either as it was or as it should be: no record is lost or duplicated (a file left as it was
/// is sent again by the next retry, with the same messageIds, which the destination deduplicates).
///
/// It holds the state directory like a run does (no run can append meanwhile), refuses a state
/// that belongs to another destination, and learns no identities (the state is left unchanged).
public final class DeadLetterRetry: Sendable {
    let config: ReplayConfig
    let stateDirectory: String
    let reason: String?
    let logger: Logger
    let embeddedCollector: EmbeddedCollectorURL?
    let transport: (any DeliveryTransport)?
    /// How long in-flight batches get to settle after a stop request.
    let stopGrace: Duration
    /// Where the files are replaced (or removed) once retried.
    let fileSystem: any FileSystem

    /// Prepares a retry of the dead letters of `stateDirectory` with reason `reason` (all when nil).
    /// - Parameters:
    ///   - embeddedCollector: the address of the collector that `ingestion.host: embedded` names,
    ///     which the caller runs.
    ///   - stopGrace: how long in-flight batches get to settle after a stop request.
    public convenience init(
        config: ReplayConfig, stateDirectory: String, reason: String?, logger: Logger,
        embeddedCollector: EmbeddedCollectorURL? = nil, stopGrace: Duration = .seconds(5)
    ) {
        self.init(
            config: config, stateDirectory: stateDirectory, reason: reason, logger: logger,
            embeddedCollector: embeddedCollector, transport: nil, stopGrace: stopGrace)
    }

    /// Prepares a retry as above, sending through `transport` instead of the HTTP transport, and
    /// replacing the retried files through `fileSystem`.
    package init(
        config: ReplayConfig, stateDirectory: String, reason: String?, logger: Logger,
        embeddedCollector: EmbeddedCollectorURL? = nil, transport: (any DeliveryTransport)?,
        stopGrace: Duration = .seconds(5), fileSystem: any FileSystem = LocalFileSystem()
    ) {
        self.config = config
        self.stateDirectory = stateDirectory
        self.reason = reason
        self.logger = logger
        self.embeddedCollector = embeddedCollector
        self.transport = transport
        self.stopGrace = stopGrace
        self.fileSystem = fileSystem
    }

    /// Retries every dead-letter file, oldest first, until done, a stop is requested or the
    /// destination stops answering. Throws a ``UsageError`` before anything is sent (the state
    /// is in use, belongs to another destination, the embedded collector cannot start), or
    /// when a file cannot be read or replaced (it is then unchanged).
    public func run(stop: StopSignal = StopSignal()) async throws -> DeadLetterRetryReport {
        let lock = try await StateDirectoryLock.acquire(
            directory: stateDirectory, wait: true, stop: stop, announce: { [logger] in logger.warning("\($0)") })
        defer { withExtendedLifetime(lock) {} }
        let state = try StateDirectory(path: stateDirectory)
        let identity = try openIdentity(state)
        defer { identity.close() }
        try CheckpointDestination.check(config, identity: identity, stateDirectory: state.path)
        var report = DeadLetterRetryReport()
        report.files = DeadLetterFiles(path: state.deadLetterPath).all()
        let enricher = Enricher(config: config, identity: identity)
        let embeddedURL = try await config.embeddedCollectorURL(from: embeddedCollector)
        try await DeliveryTarget.with(config: config, embeddedURL: embeddedURL, collectedPath: state.collectedPath) {
            target in
            let delivery = try target.deliveryConfiguration(config)
            var sequence: UInt64 = 0
            for file in report.files {
                if stop.isRequested { report.stop(.interrupted, "stopped by a signal") }
                if report.stopReason != nil { break }
                try await retry(
                    file: file, enricher: enricher, sequence: &sequence, engine: (delivery, target), stop: stop,
                    report: &report)
            }
        }
        if report.status == .completed, !report.deadLetteredAgain.isEmpty { report.status = .completedWithDrops }
        return report
    }

    /// What becomes of one record of a file.
    enum Fate {
        case keep
        case remove
        case replace(reason: String, detail: String, raw: [UInt8])
    }

    /// Retries the records of one file and replaces it with what remains.
    private func retry(
        file: String, enricher: Enricher, sequence: inout UInt64, engine: (DeliveryConfiguration, DeliveryTarget),
        stop: StopSignal, report: inout DeadLetterRetryReport
    ) async throws {
        let records = try DeadLetterRecord.read(file)
        var fates = [Fate](repeating: .keep, count: records.count)
        var chunk = EventChunk()
        for (k, record) in records.enumerated() where reason == nil || record.reason == reason {
            if record.notRetryable != nil {
                report.notRetryable[record.reason, default: 0] += 1
                continue
            }
            report.selected += 1
            fates[k] = prepare(record, tag: k, enricher: enricher, sequence: &sequence, into: &chunk, report: &report)
        }
        if !chunk.entries.isEmpty {
            let (outcomes, cause) = await send(chunk, configuration: engine.0, target: engine.1, stop: stop)
            for outcome in outcomes {
                let k = Int(outcome.tag)
                switch outcome.result {
                case .delivered:
                    fates[k] = .remove
                    report.delivered += 1
                case .gaveUp(let why, let detail):
                    fates[k] = .replace(reason: why.rawValue, detail: detail, raw: outcome.givenUpBytes ?? records[k].raw ?? [])
                    report.deadLetteredAgain[why.rawValue, default: 0] += 1
                case .notDelivered:
                    report.pending += 1
                }
            }
            report.pending += chunk.entries.count - outcomes.count  // not taken by a stopped engine
            if let cause { report.stop(cause) }
        }
        guard fates.contains(where: { if case .keep = $0 { false } else { true } }) else { return }
        try replace(file, with: Self.remaining(records, fates), removeWhenEmpty: file != StateDirectory.deadLetterPath(in: stateDirectory))
    }

    /// Enriches one record again: its event goes into `chunk` (tagged `tag`), or it fails again
    /// (its new reason) or is settled by a rule (removed, as a run stores no such event).
    private func prepare(
        _ record: DeadLetterRecord, tag: Int, enricher: Enricher, sequence: inout UInt64, into chunk: inout EventChunk,
        report: inout DeadLetterRetryReport
    ) -> Fate {
        let raw = record.raw ?? []
        let outcome = raw.withUnsafeBufferPointer {
            enricher.process($0, lineNumber: record.line, sequence: sequence, into: &chunk.storage)
        }
        sequence += 1
        switch outcome {
        case .event(let event):
            chunk.entries.append(EventChunk.Entry(range: event.range, laneKey: event.laneKey, tag: UInt64(tag)))
            return .keep  // until its outcome is known
        case .deadLetter(let why, let detail):
            report.deadLetteredAgain[why, default: 0] += 1
            return .replace(reason: why, detail: detail, raw: raw)
        case .skipped(let rule):
            report.settledByRule[rule.rawValue, default: 0] += 1
            return .remove
        case .blank:
            return .keep
        }
    }
}
