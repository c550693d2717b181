import Logging
import Synchronization

/// The client's record of the events inside the engine, fed by the engine's outcome callback.
///
/// Shared between the client actor and the engine's callback (which runs on the engine's
/// isolation), so it is a class around a `Mutex`.
final class OutcomeLedger: Sendable {
    struct State {
        var inEngine: [UInt64: Event] = [:]
        var undelivered: [(tag: UInt64, event: Event)] = []
        var stats = ClientStats()
        var fatalStatus: Int?
        var settledWaiters: [Wakeup] = []
    }

    private let state = Mutex(State())
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// The event enters the engine.
    func add(_ tag: UInt64, _ event: Event) {
        state.withLock { $0.inEngine[tag] = event }
    }

    /// The engine refused the event (it stopped): the client keeps it.
    func remove(_ tag: UInt64) {
        let waiters = state.withLock { s -> [Wakeup] in
            s.inEngine[tag] = nil
            return Self.takeWaitersIfSettled(&s)
        }
        for w in waiters { w.resume() }
    }

    /// Applies outcomes from the engine.
    func record(_ outcomes: [EventOutcome]) {
        var fatal: Int?
        let waiters = state.withLock { s -> [Wakeup] in
            for o in outcomes {
                let event = s.inEngine.removeValue(forKey: o.tag)
                switch o.result {
                case .delivered: s.stats.delivered += 1
                case .gaveUp(let reason, let detail):
                    s.stats.givenUp[reason.rawValue, default: 0] += 1
                    logger.warning(
                        "event given up",
                        metadata: [
                            "messageId": "\(o.messageId)", "reason": "\(reason)",
                            "detail": "\(detail)",
                        ])
                case .notDelivered(let cause):
                    s.stats.notDelivered += 1
                    if let event { s.undelivered.append((o.tag, event)) }
                    if case .fatalStatus(let code) = cause, s.fatalStatus == nil {
                        s.fatalStatus = code
                        fatal = code
                    }
                }
            }
            return Self.takeWaitersIfSettled(&s)
        }
        if let fatal {
            logger.error("the endpoint answered \(fatal): the client is disabled and drops later calls; check the write key and host")
        }
        for w in waiters { w.resume() }
    }

    /// The status that disabled the client (401, 403, 404), if any.
    var fatalStatus: Int? { state.withLock { $0.fatalStatus } }

    /// Outcome counters so far.
    var stats: ClientStats {
        state.withLock {
            var s = $0.stats
            s.inFlight = $0.inEngine.count
            return s
        }
    }

    /// Takes the events the engine reported not delivered.
    func takeUndelivered() -> [(tag: UInt64, event: Event)] {
        state.withLock { s in
            defer { s.undelivered = [] }
            return s.undelivered
        }
    }

    /// Returns once no event is in the engine, or when the calling task is cancelled.
    func waitUntilSettled() async {
        let settled = Wakeup()
        let now = state.withLock { s -> Bool in
            if s.inEngine.isEmpty { return true }
            s.settledWaiters.append(settled)
            return false
        }
        if !now { await settled.wait() }
    }

    private static func takeWaitersIfSettled(_ s: inout State) -> [Wakeup] {
        guard s.inEngine.isEmpty, !s.settledWaiters.isEmpty else { return [] }
        defer { s.settledWaiters = [] }
        return s.settledWaiters
    }
}
