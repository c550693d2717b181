/// Bulk submission: many events in one hop onto the engine.
extension DeliveryEngine {
    /// Queues the events of `chunk` in order, exactly like submitting each as an
    /// ``EncodedEvent`` whose ordering key has the entry's lane key (see ``EventChunk/Entry``),
    /// with an empty messageId in each outcome: one hop onto the engine and no array per event,
    /// the events sharing the chunk's storage until their batches are sent. Suspends while too
    /// many events are pending. Returns how many events were accepted: fewer than
    /// `chunk.entries.count` only when the engine stopped or is finishing, or the calling task
    /// was cancelled while it waited for room, and then the caller keeps the rest (they have no
    /// outcome).
    ///
    /// - Precondition: every entry's range lies inside `chunk.storage` and spans exactly one
    ///   non-empty JSON object, from its `{` to its `}`, checked in every build: the bounds here,
    ///   the bytes when its batch body is written (they are read then anyway; a wrong range would
    ///   otherwise send bytes of other events).
    @_spi(PerLine) public func submit(chunk: EventChunk) async -> Int {
        var accepted = 0
        let storage = chunk.storage
        for i in chunk.entries.indices {
            if mustWaitForRoom, !(await waitForRoom()) { break }
            guard stopCauseStorage == nil && !closing else { break }
            let entry = chunk.entries[i]
            precondition(
                entry.range.lowerBound >= 0 && entry.range.upperBound <= storage.count && entry.range.count >= 2,
                "EventChunk entry \(i) (\(entry.range)) is not inside the chunk's \(storage.count) bytes")
            enqueue(
                storage: storage, range: entry.range, closingBrace: (entry.range.count - 1, false), checkBytes: true,
                tag: entry.tag, messageId: "", lane: LaneRouting.lane(forKey: entry.laneKey, laneCount: lanes.count),
                wakeLanes: false)
            accepted += 1
        }
        // The lanes run only once this call suspends or returns, so one pass over them after the
        // run of events wakes them as waking after each event would (`waitForRoom` wakes them
        // before it suspends).
        wakeReadyLanes()
        return accepted
    }
}
