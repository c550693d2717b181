import Foundation
@_spi(PerLine) import MetaRouterDelivery
import Timestamps

extension RunReport {
    /// Sets the duration, the rate and the finish time of a run that started at `startInstant`.
    package mutating func finish(startInstant: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - startInstant
        durationSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        throughput.eventsPerSecond = durationSeconds > 0 ? (Double(events.delivered) / durationSeconds).rounded() : 0
        finishedAt = Timestamp.iso8601(Date())
    }

    /// Copies the engine's counters into the report.
    package mutating func apply(_ stats: DeliveryStats) {
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
    package mutating func noteStateFailure(_ reason: String) {
        switch status {
        case .completed, .completedWithDrops:
            status = .stoppedTransient
            stopReason = reason
        case .interrupted, .stoppedTransient, .failedFatal:
            stopReason = [stopReason, reason].compactMap { $0 }.joined(separator: "; ")
        }
    }

    /// Sets `status` and `stopReason` from how the run ended.
    package mutating func classify(early: (Status, String)?, stopRequested: Bool, engineStop: StopCause?) {
        switch (early, engineStop) {
        case (.some(let (status, reason)), _):
            self.status = status
            stopReason = reason
        case (nil, .fatalStatus(let code)?):
            status = .failedFatal
            stopReason = "the destination answered \(code): check the write key, host and path"
        case (nil, .tlsFailure(let why)?):
            status = .failedFatal
            stopReason = "TLS with the destination failed: \(why); check ingestion.tls (ca_file, client_cert, client_key)"
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
