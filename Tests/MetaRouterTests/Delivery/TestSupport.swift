import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

@_spi(PerLine) @testable import MetaRouterDelivery

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

/// Runs `events` through a new engine and returns it with the outcomes (on `clock`'s executor,
/// see ``running(_:_:)``).
func runEngine(
    _ configuration: DeliveryConfiguration, _ transport: any DeliveryTransport, clock: TestClock,
    random: Double = 0.5, events: [EncodedEvent]
) async -> (DeliveryEngine, DeliveryStats, OutcomeSink) {
    let sink = OutcomeSink()
    let engine = DeliveryEngine(
        configuration: configuration, transport: transport, clock: clock,
        random: FixedRandom(value: random), onOutcomes: sink.callback)
    let stats = await running(engine) {
        for e in events { _ = await engine.submit(e) }
        return await engine.finish()
    }
    return (engine, stats, sink)
}

/// Runs `engine` (its lanes are child tasks of this call) while `body` uses it, then finishes it
/// (when `body` did not) and returns once ``DeliveryEngine/run()`` has. With a ``TestClock``,
/// the lanes, the engine and `body` run on the clock's executor, so an automatically advancing
/// clock moves only when all of them wait.
func running<T, E: Error>(_ engine: DeliveryEngine, _ body: () async throws(E) -> T) async throws(E) -> T {
    try await withTaskExecutorPreference(engine.clock as? TestClock) { () async throws(E) -> T in
        async let lanes: Void = engine.run()
        do throws(E) {
            let result = try await body()
            _ = await engine.finish()
            await lanes
            return result
        } catch {
            _ = await engine.cancel(grace: .zero)
            await lanes
            throw error
        }
    }
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
