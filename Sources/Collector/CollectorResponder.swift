import IngestionChecks
import JSONCore
import NIOCore
import SegmentAPI

/// Answers `POST {base}/v1/batch`, `GET {base}/stats` and, through ``SimpleAnalyticsReceiver``,
/// `POST {base}/simpleanalytics`.
struct CollectorResponder: Sendable {
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

    /// The answer to `request`.
    func respond(to request: CollectorRequest) async -> CollectorResponse {
        let path = IngestionPaths.path(of: request.uri)
        if request.method == .GET, paths.stats.contains(where: { $0 == path }) {
            return .json(200, Array(stats.snapshot().jsonText.utf8))
        }
        if path == simpleAnalytics.path { return await simpleAnalytics.respond(to: request) }
        guard let raw = request.body else {
            stats.recordRequest(bodyBytes: 0)
            return refuse(policy.rawBodyTooLarge)
        }
        stats.recordRequest(bodyBytes: raw.readableBytes)
        guard path == paths.batch else { return finish(404, "not found") }
        guard request.method == .POST else { return finish(405, "method not allowed") }
        if let injected = await injectFault() { return injected }

        let checked: IngestionPolicy.Checked
        do {
            var scratch = ByteBuffer()
            checked = try policy.check(
                authorization: request.header("authorization"), contentEncoding: request.header("content-encoding"),
                body: raw, headerRequired: false, scratch: &scratch)
        } catch {
            return refuse(error)
        }
        return await ingest(checked.body, authorized: checked.authorized)
    }

    /// Applies the configured latency and fault decision; nil when the request goes on.
    private func injectFault() async -> CollectorResponse? {
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
            response.headers.append(("Retry-After", String(seconds)))
            return response
        case .reset:
            stats.recordReset()
            return .reset
        }
    }

    /// Validates, stores and counts one decoded body.
    private func ingest(_ body: ByteBuffer, authorized: Bool) async -> CollectorResponse {
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
                response.headers.append(("Retry-After", "1"))
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
            return .json(200, Array(#"{"success":true}"#.utf8))
        }
    }

    /// Counts and builds the answer to a request the shared checks refused.
    private func refuse(_ refusal: IngestionRefusal) -> CollectorResponse {
        finish(refusal.status, refusal.reason, close: refusal.closesConnection)
    }

    /// Counts and builds an error (or injected) response.
    private func finish(_ status: Int, _ reason: String, close: Bool = false) -> CollectorResponse {
        stats.recordResponse(status)
        var response = CollectorResponse.json(status, IngestionRefusal.jsonBody(reason))
        response.closesConnection = close
        return response
    }
}
