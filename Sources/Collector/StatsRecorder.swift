import IngestionChecks
import Synchronization

/// Thread-safe counters and the messageId tally behind `CollectorStats`.
final class StatsRecorder: Sendable {
    private struct State {
        var stats = CollectorStats()
        var seen: [String: Int] = [:]
        /// Callers of ``waitForRequests(_:)``: the count each waits for, by waiter id.
        var requestWaiters: [Int: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// Counts one ingestion request and its body size.
    func recordRequest(bodyBytes: Int) {
        let reached = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.stats.requests += 1
            s.stats.bytes += bodyBytes
            let met = s.requestWaiters.filter { $0.value.count <= s.stats.requests }
            for id in met.keys { s.requestWaiters[id] = nil }
            return met.values.map(\.continuation)
        }
        for waiter in reached { waiter.resume() }
    }

    /// Returns once `count` ingestion requests have been counted (at once if they have), or when
    /// the calling task is cancelled.
    func waitForRequests(_ count: Int) async {
        let id = state.withLock { s -> Int in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.stats.requests >= count || Task.isCancelled { return true }
                    s.requestWaiters[id] = (count, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.requestWaiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// Counts one response status.
    func recordResponse(_ status: Int) {
        state.withLock { s in s.stats.responses[String(status), default: 0] += 1 }
    }

    /// Counts a purposely reset connection.
    func recordReset() {
        state.withLock { s in s.stats.resets += 1 }
    }

    /// Counts invalid events.
    func recordInvalid(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { s in s.stats.invalid += count }
    }

    /// Counts an accepted batch: its accepted events, its size as sent (`batchSize`, invalid
    /// events included) and its messageIds (nil entries are not tracked).
    func recordAccepted(count: Int, batchSize: Int, messageIds: [String?]) {
        state.withLock { s in
            s.stats.events += count
            if batchSize > s.stats.maxBatchEvents { s.stats.maxBatchEvents = batchSize }
            for case let id? in messageIds {
                let previous = s.seen[id, default: 0]
                s.seen[id] = previous + 1
                if previous > 0 { s.stats.duplicates += 1 }
            }
            s.stats.unique = s.seen.count
        }
    }

    /// A snapshot of the counters.
    func snapshot() -> CollectorStats {
        state.withLock { $0.stats }
    }
}
