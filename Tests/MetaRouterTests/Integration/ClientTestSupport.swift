import Foundation
import JSONCore
import Synchronization
import Testing

@_spi(PerLine) @testable import MetaRouter

/// A clock that only moves when the test calls `advance`; sleepers wake when their deadline is reached.
final class ManualClock: EngineClock {
    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var sleepers: [Sleeper] = []
        var nextId = 0
        var sleeperWaiters: [(deadline: Duration?, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Takes the waiters whose condition holds now.
        mutating func readyWaiters() -> [CheckedContinuation<Void, Never>] {
            let sleepers = self.sleepers
            func holds(_ w: (deadline: Duration?, count: Int, continuation: CheckedContinuation<Void, Never>)) -> Bool {
                if let d = w.deadline { return sleepers.contains { $0.deadline == d } }
                return sleepers.count >= w.count
            }
            let ready = sleeperWaiters.filter(holds).map(\.continuation)
            sleeperWaiters.removeAll(where: holds)
            return ready
        }
    }

    private let state = Mutex(State())
    let wallOrigin: Date

    init(wallOrigin: Date = Date(timeIntervalSince1970: 1_800_000_000)) { self.wallOrigin = wallOrigin }

    var now: Duration { state.withLock { $0.now } }
    var wallClock: Date { wallOrigin.addingTimeInterval(Double(now.components.seconds)) }

    func sleep(until deadline: Duration) async throws {
        let id = state.withLock { s -> Int in
            s.nextId += 1
            return s.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let (resumeNow, waiters) = state.withLock { s -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= s.now { return (true, []) }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: c))
                    return (false, s.readyWaiters())
                }
                for w in waiters { w.resume() }
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

    /// How many tasks sleep on this clock now.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    func advance(by d: Duration) {
        let due = state.withLock { s -> [Sleeper] in
            s.now += d
            let due = s.sleepers.filter { $0.deadline <= s.now }
            s.sleepers.removeAll { $0.deadline <= s.now }
            return due
        }
        for s in due { s.continuation.resume() }
    }

    /// Returns once at least `count` tasks sleep on this clock.
    func waitForSleepers(_ count: Int) async { await waitFor(deadline: nil, count: count) }

    /// Returns once a task sleeps until exactly `deadline`.
    func waitForSleeper(until deadline: Duration) async { await waitFor(deadline: deadline, count: 0) }

    private func waitFor(deadline: Duration?, count: Int) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.sleeperWaiters.append((deadline, count, c))
                return s.readyWaiters()
            }
            for w in ready { w.resume() }
        }
    }
}

/// Records requests (parsed events) and answers with a fixed status; tests can await a request count.
final class RecordingTransport: DeliveryTransport {
    private struct State {
        var requests: [DeliveryRequest] = []
        var events: [[JSONObject]] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    let status: Int

    init(status: Int = 200) { self.status = status }

    var requests: [DeliveryRequest] { state.withLock { $0.requests } }
    /// Every event sent, in request order.
    var events: [JSONObject] { state.withLock { $0.events.flatMap { $0 } } }
    var batches: [[JSONObject]] { state.withLock { $0.events } }

    func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        let events = (try? JSONValue(parsing: request.body))?.objectValue?["batch"]?.arrayValue?.compactMap(\.objectValue) ?? []
        let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.requests.append(request)
            s.events.append(events)
            let ready = s.waiters.filter { $0.count <= s.requests.count }.map(\.continuation)
            s.waiters.removeAll { $0.count <= s.requests.count }
            return ready
        }
        for w in ready { w.resume() }
        return .status(status, headers: [])
    }

    /// Returns once `count` requests have arrived.
    func waitForRequests(_ count: Int) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.requests.count >= count { return true }
                s.waiters.append((count, c))
                return false
            }
            if now { c.resume() }
        }
    }
}

/// Options for a client against a fake loopback host.
func clientOptions(_ edit: (inout ClientOptions) -> Void = { _ in }) -> ClientOptions {
    var o = ClientOptions(writeKey: "client-key", ingestionHost: "http://127.0.0.1:9")
    o.delivery.concurrency = 1
    edit(&o)
    return o
}

/// A fresh temporary directory path (not created).
func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("mr-client-\(UUID().uuidString)").path
}

/// Starts `client.run()` in a task, as a service group would, and returns once it runs.
@discardableResult
func startRunning(_ client: MetaRouterClient) async -> Task<Void, any Error> {
    let task = Task { try await client.run() }
    while await client.phase == .ready { await Task.yield() }
    return task
}
