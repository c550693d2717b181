import Collector
import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterAsyncHTTPClient
import MetaRouterTesting
import NIOPosix
import ServerTesting
import Synchronization
import Testing

/// What one engine run against an in-process collector produced.
struct LoopbackResult {
    /// Every outcome the engine reported, in report order.
    let outcomes: [EventOutcome]
    /// Tags of the events `submit` accepted.
    let accepted: [UInt64]
    /// Tags of the events `submit` refused (the engine had stopped; the caller keeps them).
    let refused: [UInt64]
    /// The engine's counters.
    let stats: DeliveryStats
    /// The collector's counters.
    let collector: CollectorStats
    /// Each stored line of the NDJSON store, parsed, in file order.
    let stored: [JSONObject]
    /// What the recording transport saw (the bodies as sent, gzipped when they were).
    let requests: [RecordedRequest]

    /// The stored events' message ids in file order.
    var storedIds: [String] { stored.compactMap { $0["messageId"]?.stringValue } }

    /// Outcomes by tag (a duplicate outcome fails the exactly-one check, not this lookup).
    var byTag: [UInt64: EventOutcome] { Dictionary(outcomes.map { ($0.tag, $0) }, uniquingKeysWith: { a, _ in a }) }

    /// Message ids of the events the engine reported delivered.
    var deliveredIds: Set<String> {
        Set(outcomes.filter { $0.result == .delivered }.map(\.messageId))
    }
}

/// Keys of the in-process collector and of the engine.
enum Loopback {
    static let writeKey = "integration-key"

    /// Engine settings that keep fault runs fast: short waits, a generous retry budget.
    static func fastConfiguration(host: String) -> DeliveryConfiguration {
        var c = DeliveryConfiguration(host: host, writeKey: writeKey)
        c.concurrency = 4
        c.maxBatchEvents = 50
        c.retryFloor = .milliseconds(10)
        c.breaker.cooldown = .milliseconds(20)
        c.breaker.maxCooldown = .milliseconds(80)
        c.maxAttempts = 200
        c.maxElapsed = .seconds(60)
        c.requestTimeout = .seconds(10)
        return c
    }

    /// `count` track events over `users` identities; each carries `properties.seq` (its index)
    /// and, every `invalidEvery` events, is invalid for the collector (a track with no `event`).
    static func events(count: Int, users: Int = 25, invalidEvery: Int = 0, padding: Int = 0) -> [EncodedEvent] {
        (0..<count).map { i in
            let invalid = invalidEvery > 0 && i % invalidEvery == invalidEvery - 1
            var json = #"{"type":"track","#
            if !invalid { json += #""event":"Order \#(i % 7)","# }
            json += #""anonymousId":"user-\#(i % users)","messageId":"msg-\#(i)","properties":{"seq":\#(i)"#
            if padding > 0 { json += #","pad":"\#(String(repeating: "p", count: padding))""# }
            json += "}}"
            return try! EncodedEvent(validating: Array(json.utf8), tag: UInt64(i))
        }
    }

    /// Starts a collector with an NDJSON store, runs `events` through a `DeliveryEngine` with the
    /// real HTTP transport, finishes, stops the collector and reads the store back.
    static func run(
        _ events: [EncodedEvent],
        collector configureCollector: (inout CollectorConfiguration) -> Void = { _ in },
        engine configureEngine: (inout DeliveryConfiguration) -> Void = { _ in }
    ) async throws -> LoopbackResult {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mr-int-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let storePath = dir.appendingPathComponent("events.ndjson").path

        var collectorConfig = CollectorConfiguration(writeKey: writeKey, store: .ndjson(storePath))
        configureCollector(&collectorConfig)
        let server = CollectorServer(configuration: collectorConfig)
        return try await withRunningServer(server) { running in
            let base = await server.baseURL

            var config = fastConfiguration(host: base)
            configureEngine(&config)
            try config.validate()
            let http = HTTPDeliveryTransport(
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
                maxConnectionsPerHost: config.concurrency)
            let transport = ScriptedTransport(forwardingTo: http)
            let sink = OutcomeSink()
            let engine = DeliveryEngine(configuration: config, transport: transport, onOutcomes: sink.callback)
            async let _ = engine.run()
            var accepted: [UInt64] = []
            var refused: [UInt64] = []
            for e in events {
                if await engine.submit(e) { accepted.append(e.tag) } else { refused.append(e.tag) }
            }
            let stats = await engine.finish()
            await http.shutdown()
            let collectorStats = server.stats()
            await running.shutdown()

            let text = (try? String(contentsOfFile: storePath, encoding: .utf8)) ?? ""
            let stored = try text.split(separator: "\n").map { line -> JSONObject in
                guard let o = try JSONValue(parsing: String(line)).objectValue else { throw StoredLineError() }
                return o
            }
            return LoopbackResult(
                outcomes: sink.all, accepted: accepted, refused: refused, stats: stats,
                collector: collectorStats, stored: stored, requests: transport.requests)
        }
    }
}

/// A stored line that is not a JSON object.
struct StoredLineError: Error {}

/// The invariants every run must keep, whatever the faults.
func expectRunInvariants(
    _ r: LoopbackResult, submitted events: [EncodedEvent],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    // Exactly one outcome per accepted event, none for refused ones.
    let tags = r.outcomes.map(\.tag)
    #expect(tags.count == Set(tags).count, "an event got more than one outcome", sourceLocation: sourceLocation)
    #expect(Set(tags) == Set(r.accepted), "outcomes and accepted events differ", sourceLocation: sourceLocation)
    #expect(r.accepted.count + r.refused.count == events.count, sourceLocation: sourceLocation)
    #expect(Set(r.refused).isDisjoint(with: Set(tags)), sourceLocation: sourceLocation)

    // Stats add up.
    let s = r.stats
    #expect(s.eventsSubmitted == r.accepted.count, sourceLocation: sourceLocation)
    #expect(s.eventsDelivered + s.eventsGivenUp + s.eventsNotDelivered == s.eventsSubmitted, sourceLocation: sourceLocation)
    #expect(s.givenUpReasons.values.reduce(0, +) == s.eventsGivenUp, sourceLocation: sourceLocation)
    #expect(s.eventsDelivered == r.outcomes.filter { $0.result == .delivered }.count, sourceLocation: sourceLocation)
    #expect(s.responses.values.reduce(0, +) == s.batchesSent, sourceLocation: sourceLocation)
    #expect(s.batchesSent == r.requests.count, sourceLocation: sourceLocation)

    // Every give-up has a reason.
    for o in r.outcomes {
        if case .gaveUp(let reason, let detail) = o.result {
            #expect(!reason.rawValue.isEmpty, "give-up without a reason: \(o.messageId)", sourceLocation: sourceLocation)
            #expect(!detail.isEmpty, "give-up without detail: \(o.messageId)", sourceLocation: sourceLocation)
        }
    }

    // What arrived is exactly what was reported delivered (duplicates allowed, nothing else).
    #expect(Set(r.storedIds) == r.deliveredIds, "stored and delivered message ids differ", sourceLocation: sourceLocation)
    #expect(r.collector.unique == r.deliveredIds.count, sourceLocation: sourceLocation)

    // Per-identity order: the first arrival of each event keeps the submit order of its identity.
    var seen = Set<String>()
    var lastSeq: [String: Int] = [:]
    for e in r.stored {
        guard let id = e["messageId"]?.stringValue, seen.insert(id).inserted,
            let user = e["anonymousId"]?.stringValue,
            case .number(let n)? = e["properties"]?.objectValue?["seq"], let seq = n.intValue
        else { continue }
        if let last = lastSeq[user] {
            #expect(last < seq, "order broken for \(user)", sourceLocation: sourceLocation)
        }
        lastSeq[user] = seq
    }
}
