import IngestionChecks
import Synchronization

/// The count-only server's counters, shared by its event loop threads.
///
/// One lock acquisition per request (``record(bodyBytes:status:events:)``), none per event;
/// uncontended, a `Mutex` costs tens of nanoseconds, nothing next to the request itself.
final class CountOnlyStatsRecorder: Sendable {
    private struct Counters {
        var requests = 0
        var bytes = 0
        var events = 0
        var maxBatchEvents = 0
        /// 200s, the usual answer, without a dictionary update.
        var ok = 0
        /// Every other status.
        var other: [Int: Int] = [:]
    }

    private let counters = Mutex(Counters())

    /// Counts one answered request (anything but `GET /stats`): its body size as received,
    /// its status, and for a 200 its events (which also count towards `max_batch_events`).
    func record(bodyBytes: Int, status: Int, events: Int = 0) {
        counters.withLock { c in
            c.requests += 1
            c.bytes += bodyBytes
            if status == 200 {
                c.ok += 1
                c.events += events
                if events > c.maxBatchEvents { c.maxBatchEvents = events }
            } else {
                c.other[status, default: 0] += 1
            }
        }
    }

    /// A snapshot of the counters, with the full collector's keys (``CollectorStats``); the
    /// ones the sink does not track stay 0.
    func snapshot() -> CollectorStats {
        let c = counters.withLock { $0 }
        var responses: [String: Int] = [:]
        if c.ok > 0 { responses["200"] = c.ok }
        for (status, n) in c.other { responses[String(status)] = n }
        return CollectorStats(
            requests: c.requests, responses: responses, events: c.events, bytes: c.bytes,
            maxBatchEvents: c.maxBatchEvents)
    }
}
