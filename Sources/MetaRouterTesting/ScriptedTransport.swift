import GzipCodec
import JSONCore
import MetaRouterDelivery
import Synchronization

/// One request as a ``ScriptedTransport`` saw it, with its answer.
public struct RecordedRequest: Sendable {
    /// The request's number: 0 for the first to arrive.
    public let index: Int
    /// The clock's time when it was answered (zero without a clock).
    public let at: Duration
    /// The request as the engine made it.
    public let request: DeliveryRequest
    /// The body, uncompressed.
    public let body: [UInt8]
    /// The events of the body's `batch`, parsed.
    public let events: [JSONObject]
    /// The answer.
    public let response: DeliveryResponse

    /// The events' messageIds (`?` where one has none).
    public var messageIds: [String] { events.map { $0["messageId"]?.stringValue ?? "?" } }

    /// The status of the answer, if it was one.
    public var statusCode: Int? { if case .status(let c, _) = response { c } else { nil } }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? { request.header(name) }
}

/// A ``DeliveryTransport`` that answers from a script and records every request; the engine's,
/// the client's and mr-replay's tests use it, and so can an app's tests.
///
/// - The script gets each request's number and parsed events and returns the answer; `nil`
///   passes the request to the `forwardingTo` transport (a real one), or answers 200.
/// - Requests can be held: all of them until ``release()`` (`holdingAll`), or those `holding`
///   picks until ``release()``; a held request that is cancelled answers a network error.
/// - Tests wait for requests with ``waitForArrivals(_:)`` and ``waitForRequests(_:)``, which are
///   woken by the requests themselves.
public final class ScriptedTransport: DeliveryTransport {
    /// Answers request number `index` (from 0) with `events`; nil forwards it (or answers 200).
    public typealias Script = @Sendable (_ index: Int, _ events: [JSONObject]) -> DeliveryResponse?

    private struct Waiter {
        let count: Int
        let arrivals: Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var arrivals = 0
        var log: [RecordedRequest] = []
        var open: Bool
        var held: [Int: CheckedContinuation<Bool, Never>] = [:]
        var waiters: [Waiter] = []

        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            let (arrivals, answered) = (self.arrivals, log.count)
            func holds(_ w: Waiter) -> Bool { (w.arrivals ? arrivals : answered) >= w.count }
            let ready = waiters.filter(holds).map(\.continuation)
            waiters.removeAll(where: holds)
            return ready
        }
    }

    private let state: Mutex<State>
    private let script: Script
    private let clock: (any EngineClock)?
    private let holding: (@Sendable ([JSONObject]) -> Bool)?
    private let inner: (any DeliveryTransport)?

    /// A transport answering by `script`.
    /// - Parameters:
    ///   - clock: stamps each recorded request with its time.
    ///   - holdingAll: every request waits for ``release()``.
    ///   - holding: the requests (by their events) that wait for ``release()``.
    ///   - inner: where requests the script returns nil for go; without one they are answered 200.
    public init(
        clock: (any EngineClock)? = nil, holdingAll: Bool = false, holding: (@Sendable ([JSONObject]) -> Bool)? = nil,
        forwardingTo inner: (any DeliveryTransport)? = nil, script: @escaping Script
    ) {
        self.clock = clock
        self.holding = holding
        self.inner = inner
        self.script = script
        state = Mutex(State(open: !holdingAll))
    }

    /// A transport answering 200 to every request (or passing it to `inner`), after a hold for
    /// those `holdingAll` or `holding` picks.
    public convenience init(
        clock: (any EngineClock)? = nil, holdingAll: Bool = false,
        holding: (@Sendable ([JSONObject]) -> Bool)? = nil, forwardingTo inner: (any DeliveryTransport)? = nil
    ) {
        self.init(clock: clock, holdingAll: holdingAll, holding: holding, forwardingTo: inner, script: { _, _ in nil })
    }

    /// A transport answering `responses` in order, then 200.
    public convenience init(clock: (any EngineClock)? = nil, sequence responses: [DeliveryResponse]) {
        self.init(clock: clock, script: { i, _ in i < responses.count ? responses[i] : nil })
    }

    /// A transport answering every request with `status`.
    public convenience init(clock: (any EngineClock)? = nil, status: Int) {
        self.init(clock: clock, script: { _, _ in .status(status, headers: []) })
    }

    /// The answered requests, in the order they were answered.
    public var requests: [RecordedRequest] { state.withLock { $0.log } }

    /// Every event of the answered requests, in order.
    public var events: [JSONObject] { requests.flatMap(\.events) }

    /// The events of each answered request.
    public var batches: [[JSONObject]] { requests.map(\.events) }

    /// The messageIds of the requests answered 2xx, in order.
    public var deliveredMessageIds: [String] {
        requests.filter { ($0.statusCode ?? 0) / 100 == 2 }.flatMap(\.messageIds)
    }

    /// How many requests arrived, answered or held.
    public var arrivals: Int { state.withLock { $0.arrivals } }

    /// Lets every held request go on, and every later one.
    public func release() {
        let held = state.withLock { s -> [CheckedContinuation<Bool, Never>] in
            s.open = true
            defer { s.held = [:] }
            return Array(s.held.values)
        }
        for h in held { h.resume(returning: true) }
    }

    /// Returns once `count` requests have arrived (answered or held).
    public func waitForArrivals(_ count: Int) async { await wait(for: count, arrivals: true) }

    /// Returns once `count` requests have been answered.
    public func waitForRequests(_ count: Int) async { await wait(for: count, arrivals: false) }

    private func wait(for count: Int, arrivals: Bool) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.waiters.append(Waiter(count: count, arrivals: arrivals, continuation: c))
                return s.satisfiedWaiters()
            }
            for w in ready { w.resume() }
        }
    }

    /// Answers `request` as the script says, after a hold if it is held.
    public func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        var body = request.body
        if request.header("Content-Encoding") == "gzip" { body = (try? GzipCodec.decompress(body)) ?? [] }
        let events = (try? JSONValue(parsing: body))?.objectValue?["batch"]?.arrayValue?.compactMap(\.objectValue) ?? []
        let (index, woken) = state.withLock { s -> (Int, [CheckedContinuation<Void, Never>]) in
            s.arrivals += 1
            return (s.arrivals - 1, s.satisfiedWaiters())
        }
        for w in woken { w.resume() }
        var response: DeliveryResponse
        if await hold(index, events) {
            if let scripted = script(index, events) {
                response = scripted
                await Task.yield()  // an answer takes a trip through the scheduler, as a real one does
            } else {
                response = await inner?.send(request) ?? .status(200, headers: [])
            }
        } else {
            response = .networkError("cancelled while held by the scripted transport")
        }
        record(
            RecordedRequest(
                index: index, at: clock?.now ?? .zero, request: request, body: body, events: events,
                response: response))
        return response
    }

    /// Holds request `index` if it is to be held, until ``release()`` (true) or the task is
    /// cancelled (false).
    private func hold(_ index: Int, _ events: [JSONObject]) async -> Bool {
        let picked = holding?(events) ?? false
        guard picked || !state.withLock({ $0.open }) else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                let goNow = state.withLock { s -> Bool? in
                    if Task.isCancelled { return false }
                    if s.open && !picked { return true }
                    s.held[index] = c
                    return nil
                }
                if let goNow { c.resume(returning: goNow) }
            }
        } onCancel: {
            let held = state.withLock { $0.held.removeValue(forKey: index) }
            held?.resume(returning: false)
        }
    }

    private func record(_ r: RecordedRequest) {
        let woken = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.log.append(r)
            return s.satisfiedWaiters()
        }
        for w in woken { w.resume() }
    }
}
