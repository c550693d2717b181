import Foundation
import Logging
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration
import RunReporting
import Synchronization
import SystemIO

extension DeadLetterRetry {
    /// Sends `chunk` through a new engine and returns every outcome, and why the engine stopped
    /// early, if it did. A stop request cancels the engine (in-flight batches get the grace).
    func send(
        _ chunk: EventChunk, configuration: DeliveryConfiguration, target: DeliveryTarget, stop: StopSignal
    ) async -> (outcomes: [EventOutcome], cause: StopCause?) {
        let collected = Mutex<[EventOutcome]>([])
        let engine = target.engine(configuration: configuration, override: transport, logger: logger) { outcomes in
            collected.withLock { $0.append(contentsOf: outcomes) }
        }
        _ = await engine.run(stop: stop, onStop: .cancel(grace: stopGrace)) {
            _ = await engine.submit(chunk: chunk)
            return ((), stop.isRequested ? .cancel : .finish)
        }
        return (collected.withLock { $0 }, await engine.stopCause)
    }

    /// The new content of a file: kept records as they were, replaced ones re-encoded with their
    /// new reason (same source and line), removed ones left out.
    static func remaining(_ records: [DeadLetterRecord], _ fates: [Fate]) -> [UInt8] {
        var out: [UInt8] = []
        for (record, fate) in zip(records, fates) {
            switch fate {
            case .keep: out += record.text
            case .remove: continue
            case .replace(let reason, let detail, let raw):
                out += raw.withUnsafeBufferPointer {
                    DeadLetterWriter.record(reason: reason, detail: detail, source: record.source, line: record.line, raw: $0)
                }
            }
            out.append(0x0A)
        }
        return out
    }

    /// Replaces `file` with `bytes` through the file system's atomic write, so a crash leaves
    /// it as it was or as it should be (a rotated file left empty is removed instead).
    func replace(_ file: String, with bytes: [UInt8], removeWhenEmpty: Bool) throws {
        if bytes.isEmpty, removeWhenEmpty {
            try fileSystem.remove(file)
        } else {
            try fileSystem.writeAtomically(file, bytes)
        }
    }

    /// Opens the state's identity store (the state's lock: no run can use it meanwhile).
    func openIdentity(_ state: StateDirectory) throws -> IdentityStore {
        let name = (state.path as NSString).lastPathComponent
        let root = Shard(directoryName: name) != nil ? (state.path as NSString).deletingLastPathComponent : state.path
        do {
            let device = try DeviceIdentity.shared(root: root.isEmpty ? "." : root)
            return try IdentityStore(stateDirectory: state.path, deviceAnonymousId: device)
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError("cannot open the state in \(state.path) (is a run using it?): \(error)")
        }
    }

}

extension DeadLetterRetryReport {
    /// Notes why the retry stops early.
    mutating func stop(_ status: RunReport.Status, _ reason: String) {
        self.status = status
        stopReason = reason
    }

    /// Notes that the engine stopped early, and why.
    mutating func stop(_ cause: StopCause) {
        switch cause {
        case .fatalStatus(let code): stop(.failedFatal, "the destination answered \(code): check the write key, host and path")
        case .tlsFailure(let why):
            stop(.failedFatal, "TLS with the destination failed: \(why); check ingestion.tls (ca_file, client_cert, client_key)")
        case .retriesExhausted(let why): stop(.stoppedTransient, why)
        case .cancelled: stop(.interrupted, "stopped by a signal")
        }
    }
}
