import Foundation
import MetaRouterDelivery
import Synchronization

/// An ``EngineClock`` for tests: time moves only when the clock is told to, so backoff,
/// cooldowns, rate limits and flush timers run exactly and at once, without sleeping.
///
/// - `.automatically`: time moves when nothing can run. The clock is also a serial
///   `TaskExecutor` that counts the jobs it holds; run the test's tasks on it
///   (`withTaskExecutorPreference(clock) { … }`: the engine's lanes, a default-actor engine and
///   nonisolated code called from them follow the preference). Once none of its jobs is queued
///   or running (every task is suspended: on the clock, on a held request, on the engine), the
///   clock moves to the earliest sleeper's deadline and wakes the sleepers due then. An engine's
///   waits so take no real time, are recorded at their exact virtual times, and concurrent lanes
///   see time pass in the same order on every run. A task that sleeps from elsewhere (an event
///   loop) is woken as soon as the executor holds no job.
/// - `.manually`: a sleeper waits until the test calls ``advance(by:)`` past its deadline; the
///   test learns that tasks sleep with ``waitForSleepers(_:)`` or ``waitForSleeper(until:)``,
///   which are woken when a sleeper arrives.
///
/// Either way a sleep ends with `CancellationError` when its task is cancelled.
public final class TestClock: EngineClock, TaskExecutor {
    /// How time moves.
    public enum Advancing: Sendable {
        /// Time moves to the earliest sleeper's deadline whenever no job runs on the clock's
        /// executor.
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
        /// Jobs handed to the executor (``TestClock/enqueue(_:)``) that have not finished running.
        var jobs = 0

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

        /// Takes the sleepers whose deadline has come.
        mutating func due() -> [Sleeper] {
            let now = self.now
            let due = sleepers.filter { $0.deadline <= now }
            sleepers.removeAll { $0.deadline <= now }
            return due
        }

        /// When time moves automatically and no job is queued or running: moves time to the
        /// earliest deadline and takes the sleepers due then (none otherwise).
        mutating func advanceIfQuiet(_ advancing: Advancing) -> [Sleeper] {
            guard advancing == .automatically, jobs == 0, let earliest = sleepers.map(\.deadline).min() else { return [] }
            now = max(now, earliest)
            return due()
        }
    }

    private let state = Mutex(State())
    /// Runs the executor's jobs one at a time, in the order they came.
    private let queue = DispatchQueue(label: "MetaRouterTesting.TestClock")
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

    /// Returns when the clock reaches `deadline` (at once when it has); throws
    /// `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        let id = state.withLock { s -> Int in
            s.nextId += 1
            return s.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers, due) = state.withLock { s -> (Bool, [CheckedContinuation<Void, Never>], [Sleeper]) in
                    if deadline <= s.now { return (true, [], []) }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: c))
                    // A sleep from a task that is not on the executor: time moves if nothing runs.
                    return (false, s.satisfiedWatchers(), s.advanceIfQuiet(advancing))
                }
                for w in watchers { w.resume() }
                if resumeNow { c.resume() }
                for s in due { s.continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                guard let k = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: k)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Runs `job` on the clock's serial queue after the jobs before it. When it has run and no
    /// other job is queued, an automatically advancing clock moves to the earliest deadline.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        state.withLock { $0.jobs += 1 }
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
            let due = self.state.withLock { s -> [Sleeper] in
                s.jobs -= 1
                return s.advanceIfQuiet(self.advancing)
            }
            for s in due { s.continuation.resume() }
        }
    }

    /// How many tasks sleep on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves time forward by `duration` and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { s -> [Sleeper] in
            s.now += duration
            return s.due()
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
