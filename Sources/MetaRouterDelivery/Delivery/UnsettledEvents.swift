import DequeModule

/// The engine's submitted events that have no outcome yet, by sequence number.
///
/// Sequence numbers are handed out in order, so a deque indexed by `sequence - base` replaces a
/// hash map: adding and settling are O(1) without hashing, and the settled prefix is dropped as
/// it forms, so memory follows the oldest unsettled event.
struct UnsettledEvents {
    /// What an outcome needs about an event.
    struct Ref {
        let tag: UInt64
        let messageId: String
    }

    private var slots = Deque<Ref?>()
    /// The sequence number of `slots[0]`.
    private var base: UInt64 = 0
    /// Events without an outcome.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Adds the event with the next sequence number (`sequence` must be exactly that).
    mutating func append(_ sequence: UInt64, tag: UInt64, messageId: String) {
        if slots.isEmpty { base = sequence }
        precondition(sequence == base + UInt64(slots.count), "sequence numbers must be added in order")
        slots.append(Ref(tag: tag, messageId: messageId))
        count += 1
    }

    /// Removes and returns the event `sequence`, or nil when it has an outcome already.
    mutating func remove(_ sequence: UInt64) -> Ref? {
        guard sequence >= base, sequence - base < UInt64(slots.count) else { return nil }
        let index = Int(sequence - base)
        guard let ref = slots[index] else { return nil }
        slots[index] = nil
        count -= 1
        while let first = slots.first, first == nil {
            slots.removeFirst()
            base += 1
        }
        return ref
    }

    /// The caller's tag of event `sequence`, while it has no outcome.
    func tag(of sequence: UInt64) -> UInt64? {
        guard sequence >= base, sequence - base < UInt64(slots.count) else { return nil }
        return slots[Int(sequence - base)]?.tag
    }

    /// Removes every event, returning them in sequence order.
    mutating func removeAll() -> [Ref] {
        let rest = slots.compactMap { $0 }
        slots.removeAll()
        count = 0
        return rest
    }
}
