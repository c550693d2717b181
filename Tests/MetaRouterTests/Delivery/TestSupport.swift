import Foundation
import JSONCore
import Synchronization
import Testing

@_spi(PerLine) @testable import MetaRouter

/// A virtual clock: `sleep(until:)` jumps time forward to the deadline at once, so engine waits
/// (backoff, cooldowns, rate limits) take no real time and are recorded exactly.
final class VirtualClock: EngineClock {
    private struct State {
        var now: Duration = .zero
        var sleepers: [Int: Duration] = [:]
        var nextId = 0
    }
    private let state = Mutex(State())
    let wallOrigin: Date

    init(wallOrigin: Date = Date(timeIntervalSince1970: 1_700_000_000)) { self.wallOrigin = wallOrigin }

    var now: Duration { state.withLock { $0.now } }
    var wallClock: Date { wallOrigin.addingTimeInterval(now.seconds) }

    /// Jumps virtual time forward, waking sleepers in deadline order: a sleeper only moves the
    /// clock when no other sleeper has an earlier deadline, so concurrent lanes see time pass in
    /// the same order on every run.
    func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        let id = state.withLock { s -> Int in
            s.nextId += 1
            s.sleepers[s.nextId] = deadline
            return s.nextId
        }
        defer { _ = state.withLock { $0.sleepers.removeValue(forKey: id) } }
        while true {
            // Let tasks that are about to sleep register their deadlines first.
            for _ in 0..<8 { await Task.yield() }
            try Task.checkCancellation()
            let done = state.withLock { s -> Bool in
                if s.now >= deadline { return true }
                guard let earliest = s.sleepers.values.min(), earliest >= deadline else { return false }
                s.now = deadline
                return true
            }
            if done { return }
        }
    }
}

/// Always returns the same value.
struct FixedRandom: RandomSource {
    var value: Double
    func nextDouble() -> Double { value }
    func uuid() -> UUID { UUID(uuidString: "00000000-0000-4000-8000-000000000000")! }
}

/// One request as the scripted transport saw it.
struct RecordedRequest: Sendable {
    let at: Duration
    let request: DeliveryRequest
    /// The uncompressed body.
    let body: [UInt8]
    /// The parsed batch events.
    let events: [JSONObject]
    let response: DeliveryResponse

    var messageIds: [String] { events.map { $0["messageId"]?.stringValue ?? "?" } }
    var statusCode: Int? { if case .status(let c, _) = response { return c } else { return nil } }
}

/// Answers requests with a scripted function of (request number, events) and records everything.
final class ScriptedTransport: DeliveryTransport {
    typealias Script = @Sendable (_ index: Int, _ events: [JSONObject]) -> DeliveryResponse
    private let log = Mutex<[RecordedRequest]>([])
    private let script: Script
    let clock: VirtualClock

    init(clock: VirtualClock, script: @escaping Script = { _, _ in .status(200, headers: []) }) {
        self.clock = clock
        self.script = script
    }

    /// A transport replying with `responses` in order, then 200.
    convenience init(clock: VirtualClock, sequence responses: [DeliveryResponse]) {
        self.init(clock: clock) { i, _ in i < responses.count ? responses[i] : .status(200, headers: []) }
    }

    var requests: [RecordedRequest] { log.withLock { $0 } }

    func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        var body = request.body
        if request.header("Content-Encoding") == "gzip" { body = (try? Gzip.decompress(body)) ?? [] }
        let events = (try? JSONValue(parsing: body))?.objectValue?["batch"]?.arrayValue?.compactMap(\.objectValue) ?? []
        let index = log.withLock { $0.count }
        let response = script(index, events)
        log.withLock {
            $0.append(RecordedRequest(at: clock.now, request: request, body: body, events: events, response: response))
        }
        await Task.yield()
        return response
    }
}

/// A transport whose requests hang until `release` is called.
final class GatedTransport: DeliveryTransport {
    private let state = Mutex<(count: Int, waiters: [CheckedContinuation<Void, Never>], open: Bool)>((0, [], false))

    var count: Int { state.withLock { $0.count } }

    func release() {
        let w = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            let w = s.waiters
            s.waiters = []
            return w
        }
        for c in w { c.resume() }
    }

    func send(_ request: DeliveryRequest) async -> DeliveryResponse {
        await withCheckedContinuation { c in
            let runNow = state.withLock { s -> Bool in
                s.count += 1
                if s.open { return true }
                s.waiters.append(c)
                return false
            }
            if runNow { c.resume() }
        }
        return .status(200, headers: [])
    }
}

/// Collects outcomes reported by the engine.
final class OutcomeSink: Sendable {
    private let state = Mutex<[EventOutcome]>([])
    var all: [EventOutcome] { state.withLock { $0 } }
    var callback: @Sendable ([EventOutcome]) -> Void { { batch in self.state.withLock { $0.append(contentsOf: batch) } } }

    func results() -> [String: EventOutcome.Result] {
        Dictionary(all.map { ($0.messageId, $0.result) }, uniquingKeysWith: { a, _ in a })
    }
}

/// A test event with messageId `id`.
func testEvent(_ id: String, user: String? = nil, padding: Int = 0, tag: UInt64 = 0) -> EncodedEvent {
    var json = #"{"type":"track","event":"Viewed","messageId":"\#(id)""#
    if let user { json += #","anonymousId":"\#(user)""# }
    if padding > 0 { json += #","properties":{"pad":"\#(String(repeating: "x", count: padding))"}"# }
    json += "}"
    return try! EncodedEvent(validating: Array(json.utf8), tag: tag)
}

func config(_ edit: (inout DeliveryConfiguration) -> Void = { _ in }) -> DeliveryConfiguration {
    var c = DeliveryConfiguration(host: "http://127.0.0.1:9/base", writeKey: "wk-123")
    c.concurrency = 1
    edit(&c)
    return c
}

/// Runs `events` through a new engine and returns it with the outcomes.
func runEngine(_ configuration: DeliveryConfiguration, _ transport: any DeliveryTransport, clock: VirtualClock,
         random: Double = 0.5, events: [EncodedEvent]) async -> (DeliveryEngine, DeliveryStats, OutcomeSink) {
    let sink = OutcomeSink()
    let engine = DeliveryEngine(configuration: configuration, transport: transport, clock: clock,
                                random: FixedRandom(value: random), onOutcomes: sink.callback)
    for e in events { _ = await engine.submit(e) }
    let stats = await engine.finish()
    return (engine, stats, sink)
}

/// Expects the body to be the documented envelope with sentAt everywhere and writeKey on each event.
func expectWellFormedBody(_ r: RecordedRequest, writeKey: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let root = (try? JSONValue(parsing: r.body))?.objectValue else {
        Issue.record("body is not a JSON object", sourceLocation: sourceLocation)
        return
    }
    #expect(root.keys == ["batch", "sentAt"], sourceLocation: sourceLocation)
    let sentAt = root["sentAt"]?.stringValue
    #expect(sentAt?.count == 24, sourceLocation: sourceLocation)
    #expect(!r.events.isEmpty, sourceLocation: sourceLocation)
    for e in r.events {
        #expect(e["sentAt"]?.stringValue == sentAt, sourceLocation: sourceLocation)
        #expect(e["writeKey"]?.stringValue == writeKey, sourceLocation: sourceLocation)
    }
}

extension DeliveryEngine {
    /// Submits `events` in order, one ``submit(_:)`` each; returns how many were accepted
    /// before the engine refused one (it stopped or is finishing).
    func submit(contentsOf events: [EncodedEvent]) async -> Int {
        var accepted = 0
        for e in events {
            guard await submit(e) else { break }
            accepted += 1
        }
        return accepted
    }
}

/// `events` back to back in one ``EventChunk``, with bytes no entry names between them; an
/// event without an ordering key gets the lane key of `fallbackKey`.
func chunk(of events: [EncodedEvent], fallbackKey: String = "") -> EventChunk {
    var chunk = EventChunk()
    for e in events {
        chunk.storage += Array(" \n junk ".utf8)
        let start = chunk.storage.count
        chunk.storage += e.bytes
        let key = LaneRouting.laneKey(forOrderingKey: e.orderingKey ?? fallbackKey)
        chunk.entries.append(.init(range: start..<chunk.storage.count, laneKey: key, tag: e.tag))
    }
    return chunk
}
