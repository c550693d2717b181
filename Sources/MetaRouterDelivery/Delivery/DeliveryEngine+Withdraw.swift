/// Taking back events that are queued and not yet in a request (a consent purge).
extension DeliveryEngine {
    /// Removes every event waiting in a lane, not yet part of a request, and returns their tags.
    /// They leave the engine without an outcome, counted in
    /// ``DeliveryStats/eventsWithdrawn``: the caller drops them (``MetaRouterClient``
    /// does this when data usage is revoked). Requests already out, and their retries, finish.
    package func withdrawQueued() -> [UInt64] {
        var tags: [UInt64] = []
        for i in lanes.indices {
            for pending in lanes[i].queue {
                if let ref = unsettled.remove(pending.seq) { tags.append(ref.tag) }
            }
            lanes[i].queue.removeAll()
            lanes[i].bytes = 0
            lanes[i].flushRequested = false
        }
        counters.eventsWithdrawn += tags.count
        if unsettled.count < configuration.maxPendingEvents { submitWaiters.resumeAll() }
        return tags
    }
}
