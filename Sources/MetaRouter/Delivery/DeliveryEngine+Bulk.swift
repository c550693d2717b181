/// Bulk submission: many events in one hop onto the engine.
extension DeliveryEngine {
    /// Queues the events of `chunk` in order, exactly like submitting each as an
    /// ``EncodedEvent`` whose ordering key has the entry's lane key (see ``EventChunk/Entry``),
    /// with an empty messageId in each outcome: one hop onto the engine and no array per event,
    /// the events sharing the chunk's storage until their batches are sent. Suspends while too
    /// many events are pending. Returns how many events were accepted: fewer than
    /// `chunk.entries.count` only when the engine stopped or is finishing, and then the caller
    /// keeps the rest (they have no outcome).
    ///
    /// - Precondition: every entry's range lies inside `chunk.storage` and spans exactly one
    ///   non-empty JSON object, from its `{` to its `}` (checked in every build: a wrong range
    ///   would otherwise send bytes of other events).
    @_spi(PerLine) public func submit(chunk: EventChunk) async -> Int {
        var accepted = 0
        let storage = chunk.storage
        for i in chunk.entries.indices {
            if mustWaitForRoom { await waitForRoom() }
            guard stopCauseStorage == nil && !closing else { break }
            let entry = chunk.entries[i]
            precondition(Self.isOneNonEmptyObject(storage, entry.range),
                         "EventChunk entry \(i) (\(entry.range)) is not exactly one non-empty JSON object of the storage")
            enqueue(storage: storage, range: entry.range, closingBrace: (entry.range.count - 1, false), tag: entry.tag,
                    messageId: "", lane: LaneRouting.lane(forKey: entry.laneKey, laneCount: lanes.count))
            accepted += 1
        }
        return accepted
    }

    /// Whether `storage[range]` is inside the storage, ends with `}` and does not read `{}`
    /// (the cheap checks of ``submit(chunk:)``'s precondition: the last bytes only, bounds-checked).
    static func isOneNonEmptyObject(_ storage: [UInt8], _ range: Range<Int>) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= storage.count, range.count >= 2,
              storage[range.lowerBound] == UInt8(ascii: "{"), storage[range.upperBound - 1] == UInt8(ascii: "}")
        else { return false }
        var j = range.upperBound - 2
        while j > range.lowerBound, BatchEncoder.isWhitespace(storage[j]) { j -= 1 }
        return j > range.lowerBound
    }
}
