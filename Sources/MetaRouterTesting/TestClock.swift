import Foundation
import MetaRouter
import Synchronization

/// An ``EngineClock`` for tests: time moves only when the clock is told to, so backoff,
/// cooldowns, rate limits and flush timers run exactly and at once, without sleeping.
///
/// - `.automatically`: a sleep moves the clock to its deadline once no other sleeper has an
///   earlier one, and returns, so an engine's waits take no real time, are recorded at their
///   exact virtual times, and concurrent lanes see time pass in the same order on every run.
/// - `.manually`: a sleeper waits until the test calls ``advance(by:)`` past its deadline; the
///   test learns that tasks sleep with ``waitForSleepers(_:)`` or ``waitForSleeper(until:)``,
///   which are woken when a sleeper arrives.
///
/// Either way a sleep ends with `CancellationError` when its task is cancelled.
public final class TestClock: EngineClock {
    /// How time moves.
    public enum Advancing: Sendable {
        /// Each sleep moves time to its deadline.
        case automatically
        /// Only ``TestClock/advance(by:)`` moves time.
        case manually
    }

    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        let deadline: Duration?
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now: Duration = .zero
        var sleepers: [Sleeper] = []
        var nextId = 0
        var watchers: [Watcher] = []
        /// The deadlines of the sleepers of an automatically advancing clock, by id.
        var automatic: [Int: Duration] = [:]

        /// Takes the watchers whose condition holds now.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let sleepers = self.sleepers
            func holds(_ w: Watcher) -> Bool {
                if let d = w.deadline { return sleepers.contains { $0.deadline == d } }
                return sleepers.count >= w.count
            }
            let ready = watchers.filter(holds).map(\.continuation)
            watchers.removeAll(where: holds)
            return ready
        }
    }

    private let state = Mutex(State())
    /// How time moves.
    public let advancing: Advancing
    /// The wall-clock time at virtual time zero.
    public let wallOrigin: Date

    /// A clock at virtual time zero whose wall time starts at `wallOrigin`.
    public init(advancing: Advancing = .manually, wallOrigin: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.advancing = advancing
        self.wallOrigin = wallOrigin
    }

    /// Virtual time since the clock was made.
    public var now: Duration { state.withLock { $0.now } }

    /// ``wallOrigin`` plus ``now``.
    public var wallClock: Date {
        let c = now.components
        return wallOrigin.addingTimeInterval(Double(c.seconds) + Double(c.attoseconds) / 1e18)
    }

    /// Returns when the clock reaches `deadline` (at once when it has, or, advancing
    /// automatically, after moving the clock there); throws `CancellationError` when the task is
    /// cancelled first.
    public func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        if advancing == .automatically { return try await sleepAutomatically(until: deadline) }
        let id = state.withLock { s -> Int in
            s.nextId += 1
            return s.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers) = state.withLock { s -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= s.now { return (true, []) }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: c))
                    return (false, s.satisfiedWatchers())
                }
                for w in watchers { w.resume() }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                guard let k = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: k)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock to `deadline` once no other sleeper has an earlier deadline. Before each
    /// look it yields a few times, so that tasks about to sleep register their deadlines first.
    private func sleepAutomatically(until deadline: Duration) async throws {
        let id = state.withLock { s -> Int in
            s.nextId += 1
            s.automatic[s.nextId] = deadline
            return s.nextId
        }
        defer { _ = state.withLock { $0.automatic.removeValue(forKey: id) } }
        while true {
            for _ in 0..<8 { await Task.yield() }
            try Task.checkCancellation()
            let done = state.withLock { s -> Bool in
                if s.now >= deadline { return true }
                guard let earliest = s.automatic.values.min(), earliest >= deadline else { return false }
                s.now = deadline
                return true
            }
            if done { return }
        }
    }

    /// How many tasks sleep on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves time forward by `duration` and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { s -> [Sleeper] in
            s.now += duration
            let due = s.sleepers.filter { $0.deadline <= s.now }
            s.sleepers.removeAll { $0.deadline <= s.now }
            return due
        }
        for s in due { s.continuation.resume() }
    }

    /// Returns once at least `count` tasks sleep on this clock (woken when a sleeper arrives).
    public func waitForSleepers(_ count: Int) async { await waitFor(deadline: nil, count: count) }

    /// Returns once a task sleeps until exactly `deadline` (woken when a sleeper arrives).
    public func waitForSleeper(until deadline: Duration) async { await waitFor(deadline: deadline, count: 0) }

    private func waitFor(deadline: Duration?, count: Int) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.watchers.append(Watcher(deadline: deadline, count: count, continuation: c))
                return s.satisfiedWatchers()
            }
            for w in ready { w.resume() }
        }
    }
}

/// A ``RandomSource`` that always returns the same value (and the same UUID), for exact jitter.
public struct FixedRandom: RandomSource {
    /// What ``nextDouble()`` returns.
    public var value: Double

    /// A source returning `value`.
    public init(value: Double) { self.value = value }

    /// ``value``.
    public func nextDouble() -> Double { value }

    /// `00000000-0000-4000-8000-000000000000`.
    public func uuid() -> UUID { UUID(uuidString: "00000000-0000-4000-8000-000000000000")! }
}
