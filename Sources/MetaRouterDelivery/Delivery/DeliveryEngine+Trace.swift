import Foundation

extension DeliveryEngine {
    /// Calls `observer` with a ``BatchTrace`` for every batch that is not delivered on its first
    /// attempt (retried, split, given up, or left pending by a stop), and for the pieces it is
    /// split into, each before the outcomes of its events are reported. Clean batches cost
    /// nothing. Set it before submitting events.
    package func observeBatches(_ observer: @escaping @Sendable (BatchTrace) -> Void) {
        batchObserver = observer
    }

    /// The next id of a traced batch.
    func takeTraceId() -> Int {
        defer { nextTraceId += 1 }
        return nextTraceId
    }

    /// The breaker's state, as a trace records it.
    var traceBreakerState: BatchTrace.BreakerState {
        switch policy.breaker.state {
        case .closed: .closed
        case .open: .open
        case .halfOpen: .halfOpen
        }
    }

    /// The caller's tags of `events`.
    func traceTags(_ events: [Pending]) -> [UInt64] { events.compactMap { unsettled.tag(of: $0.seq) } }
}

/// The trace of one ``DeliveryEngine/deliver(_:lane:)`` call: nothing until an attempt fails,
/// then one ``BatchTrace`` per piece (the batch and, after a split, each piece it became).
struct BatchTracer {
    /// The piece being sent.
    private struct Piece {
        var trace: BatchTrace
    }

    let lane: Int
    /// Whether anything went wrong yet (until then nothing is recorded).
    private(set) var active = false
    private var current: Piece?
    /// Ids and parents of the pieces a split made, in the order they will be sent.
    private var upcoming: [(id: Int, parent: Int)] = []

    init(lane: Int) { self.lane = lane }

    /// An attempt was answered. Returns the finished trace to report, if the piece ended and
    /// must be journaled. `makeTrace` builds the piece's trace the first time it is needed.
    mutating func answered(
        _ verdict: BatchDelivery<DeliveryEngine.Pending>.Verdict, attempt: BatchTrace.Attempt,
        makeTrace: () -> BatchTrace, newId: () -> Int
    ) -> BatchTrace? {
        let clean: Bool
        if case .delivered = verdict { clean = true } else { clean = false }
        if !active && clean { return nil }  // the common case: delivered at once, nothing kept
        active = true
        if current == nil {
            var trace = makeTrace()
            if !upcoming.isEmpty {
                let next = upcoming.removeFirst()
                trace.id = next.id
                trace.parent = next.parent
            } else {
                trace.id = newId()
            }
            current = Piece(trace: trace)
        }
        current!.trace.attempts.append(attempt)
        switch verdict {
        case .delivered: return finish(.delivered)
        case .retry: return nil
        case .split(let pieces):
            let parent = current!.trace.id
            let ids = pieces.map { _ in newId() }
            upcoming.insert(contentsOf: ids.map { ($0, parent) }, at: 0)
            return finish(.split(children: ids))
        case .giveUp(_, let reason): return finish(.gaveUp(reason: reason.rawValue))
        case .stop: return finish(.pending)
        }
    }

    /// The engine stopped between attempts: the piece being retried, if any, is pending.
    mutating func stopped() -> BatchTrace? {
        guard current != nil else { return nil }
        return finish(.pending)
    }

    private mutating func finish(_ outcome: BatchTrace.Outcome) -> BatchTrace? {
        guard var trace = current?.trace else { return nil }
        trace.outcome = outcome
        current = nil
        return trace
    }
}
