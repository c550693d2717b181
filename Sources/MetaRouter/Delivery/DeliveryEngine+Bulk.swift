/// Bulk submission: one actor hop for many events.
extension DeliveryEngine {
    /// Queues `events` in order, exactly like calling ``submit(_:)`` for each one, but with a
    /// single hop onto the engine (the per-event hop is a measurable cost at 100,000+ events/s).
    /// Suspends while too many events are pending. Returns how many events were accepted: fewer
    /// than `events.count` only when the engine stopped, and then the caller keeps the rest.
    public func submit(contentsOf events: [EncodedEvent]) async -> Int {
        var accepted = 0
        // By index: `for event in events` would copy (retain and release) every event's storage.
        for i in events.indices {
            // Suspend only when full; otherwise queue without an async call per event.
            if mustWaitForRoom { await waitForRoom() }
            guard stopCauseStorage == nil && !closing else { break }
            enqueue(events[i])
            accepted += 1
        }
        return accepted
    }
}
