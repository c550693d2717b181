import Hummingbird
import IngestionChecks
import JSONCore
import Logging
import NIOCore
import SegmentAPI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Answers `POST {base}/v1/batch` and `GET {base}/stats`.
struct CollectorResponder: HTTPResponder {
    typealias Context = CollectorContext

    let configuration: CollectorConfiguration
    let policy: IngestionPolicy
    let inspector: BatchInspector
    let stats: StatsRecorder
    let faults: FaultInjector
    /// The collector's quota of events a second, when it has one.
    let quota: EventRateLimit?
    let store: (any EventStore)?
    let startedAt: ContinuousClock.Instant
    let paths: IngestionPaths
    /// `POST {base}/simpleanalytics`.
    let simpleAnalytics: SimpleAnalyticsReceiver

    init(
        configuration: CollectorConfiguration, stats: StatsRecorder, store: (any EventStore)?,
        startedAt: ContinuousClock.Instant, simpleAnalyticsStore: NDJSONStore? = nil
    ) {
        self.configuration = configuration
        self.policy = IngestionPolicy(writeKey: configuration.writeKey, oversizeStatus: configuration.oversizeStatus)
        self.inspector = BatchInspector(
            writeKey: configuration.writeKey, strict: configuration.strict, oversizeStatus: configuration.oversizeStatus)
        self.stats = stats
        self.faults = FaultInjector(configuration.faults)
        self.quota = configuration.faults.maxEventsPerSecond.map { EventRateLimit(rate: $0) }
        self.store = store
        self.startedAt = startedAt
        self.paths = IngestionPaths(basePath: configuration.basePath)
        self.simpleAnalytics = SimpleAnalyticsReceiver(
            basePath: configuration.basePath, store: simpleAnalyticsStore, stats: stats)
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        let path = IngestionPaths.path(of: request.uri.path)
        if request.method == .get, paths.stats.contains(where: { $0 == path }) {
            return Self.json(.ok, stats.snapshot().jsonText)
        }
        if path == simpleAnalytics.path { return await simpleAnalytics.respond(to: request) }
        let raw: ByteBuffer
        do {
            raw = try await request.body.collect(upTo: SegmentLimits.maxRawBodyBytes)
        } catch {
            stats.recordRequest(bodyBytes: 0)
            return refuse(policy.rawBodyTooLarge)
        }
        stats.recordRequest(bodyBytes: raw.readableBytes)
        guard path == paths.batch else { return finish(404, "not found") }
        guard request.method == .post else { return finish(405, "method not allowed") }
        if let injected = await injectFault(context: context) { return injected }

        let checked: IngestionPolicy.Checked
        do {
            var scratch = ByteBuffer()
            checked = try policy.check(
                authorization: request.headers[.authorization], contentEncoding: request.headers[.contentEncoding],
                body: raw, headerRequired: false, scratch: &scratch)
        } catch {
            return refuse(error)
        }
        return try await ingest(checked.body, authorized: checked.authorized)
    }

    /// Applies the configured latency and fault decision; nil when the request goes on.
    private func injectFault(context: Context) async -> Response? {
        if configuration.faults.latency > .zero {
            try? await Task.sleep(for: configuration.faults.latency)
        }
        switch faults.decide(elapsed: ContinuousClock.now - startedAt) {
        case .none:
            return nil
        case .fail(let status):
            return finish(status, "injected failure")
        case .throttle(let seconds):
            var response = finish(429, "injected throttle")
            response.headers[.retryAfter] = String(seconds)
            return response
        case .reset:
            stats.recordReset()
            await Self.reset(context.channel)
            return Response(status: .internalServerError)
        }
    }

    /// Validates, stores and counts one decoded body.
    private func ingest(_ body: ByteBuffer, authorized: Bool) async throws -> Response {
        let hasStore = store != nil
        let (verdict, records) = body.withUnsafeReadableBytes { rawBytes -> (BatchVerdict, [StoredEvent]) in
            // Safe: ByteBuffer storage is plain bytes that NIO itself only reads and writes as
            // UInt8, so binding it to UInt8 matches every other access to it.
            let bytes = rawBytes.bindMemory(to: UInt8.self)
            let verdict = inspector.inspect(bytes, authorized: authorized)
            guard hasStore, case .accept(let events, let ids, _, _) = verdict else { return (verdict, []) }
            var records: [StoredEvent] = []
            records.reserveCapacity(events.count)
            for (r, id) in zip(events, ids) { records.append(StoredEvent(bytes, r, messageId: id)) }
            return (verdict, records)
        }
        switch verdict {
        case .reject(let status, let reason, let invalid):
            stats.recordInvalid(invalid)
            return finish(status, reason)
        case .accept(let events, let ids, let total, let invalid):
            if let quota, !quota.admit(events.count) {
                var response = finish(429, "over the collector's quota of \(quota.rate) events a second")
                response.headers[.retryAfter] = "1"
                return response
            }
            if let store, !records.isEmpty {
                do {
                    try await store.append(records)
                } catch {
                    return finish(500, "storage failed: \(error)")
                }
            }
            stats.recordInvalid(invalid)
            stats.recordAccepted(count: events.count, batchSize: total, messageIds: ids)
            stats.recordResponse(200)
            return Self.json(.ok, "{\"success\":true}")
        }
    }

    /// Counts and builds the answer to a request the shared checks refused.
    private func refuse(_ refusal: IngestionRefusal) -> Response {
        finish(refusal.status, refusal.reason, close: refusal.closesConnection)
    }

    /// Counts and builds an error (or injected) response.
    private func finish(_ status: Int, _ reason: String, close: Bool = false) -> Response {
        stats.recordResponse(status)
        let text = IngestionRefusal.jsonBody(reason)
        var response = Self.json(HTTPResponse.Status(code: status), String(decoding: text, as: UTF8.self))
        if close { response.headers[.connection] = "close" }
        return response
    }

    private static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Closes the connection with a TCP reset (SO_LINGER 0) instead of answering.
    private static func reset(_ channel: any Channel) async {
        if let options = channel as? any SocketOptionProvider {
            try? await options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close().get()
    }
}
