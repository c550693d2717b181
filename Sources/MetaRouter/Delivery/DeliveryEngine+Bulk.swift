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

    /// Queues the events of `chunk` in order, exactly like submitting each as an
    /// ``EncodedEvent`` (with the chunk's lane keys standing for the ordering keys and an empty
    /// messageId in each outcome), with a single hop onto the engine and no array per event: the
    /// events keep sharing the chunk's storage until their batches are sent. Suspends while too
    /// many events are pending. Returns how many events were accepted: fewer than
    /// `chunk.entries.count` only when the engine stopped, and then the caller keeps the rest.
    package func submit(chunk: EventChunk) async -> Int {
        var accepted = 0
        let storage = chunk.storage
        for i in chunk.entries.indices {
            if mustWaitForRoom { await waitForRoom() }
            guard stopCauseStorage == nil && !closing else { break }
            let entry = chunk.entries[i]
            // The caller guarantees a non-empty object ending at the range's last byte.
            assert(storage.withUnsafeBufferPointer {
                BatchEncoder.closingBrace(of: UnsafeBufferPointer(rebasing: $0[entry.range])) == (entry.range.count - 1, false)
            }, "an EventChunk entry is not exactly one non-empty JSON object")
            enqueue(storage: storage, range: entry.range, closingBrace: (entry.range.count - 1, false), tag: entry.tag, messageId: "",
                    lane: laneIndex(forKeyHash: entry.laneKey))
            accepted += 1
        }
        return accepted
    }
}
