import Hummingbird
import JSONCore
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Answers `POST {base}/v1/batch` and `GET {base}/stats`.
struct CollectorResponder: HTTPResponder {
    typealias Context = CollectorContext

    let configuration: CollectorConfiguration
    let inspector: BatchInspector
    let stats: StatsRecorder
    let faults: FaultInjector
    let store: (any EventStore)?
    let startedAt: ContinuousClock.Instant
    let batchPath: String
    let statsPaths: Set<String>

    /// Raw (possibly compressed) bodies larger than this are refused without reading them all.
    static let maxRawBody = 8 * 1024 * 1024

    init(
        configuration: CollectorConfiguration, stats: StatsRecorder, store: (any EventStore)?,
        startedAt: ContinuousClock.Instant
    ) {
        self.configuration = configuration
        self.inspector = BatchInspector(
            writeKey: configuration.writeKey, strict: configuration.strict,
            countOnly: configuration.countOnly, oversizeStatus: configuration.oversizeStatus)
        self.stats = stats
        self.faults = FaultInjector(configuration.faults)
        self.store = store
        self.startedAt = startedAt
        let base = configuration.normalizedBasePath
        self.batchPath = base + "/v1/batch"
        self.statsPaths = [base + "/stats", "/stats"]
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        var path = request.uri.path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        if request.method == .get, statsPaths.contains(path) {
            return Self.json(.ok, stats.snapshot().jsonText)
        }
        var raw: ByteBuffer
        do {
            raw = try await request.body.collect(upTo: Self.maxRawBody)
        } catch {
            stats.recordRequest(bodyBytes: 0)
            return finish(configuration.oversizeStatus, "request body too large", close: true)
        }
        stats.recordRequest(bodyBytes: raw.readableBytes)
        guard path == batchPath else { return finish(404, "not found") }
        guard request.method == .post else { return finish(405, "method not allowed") }

        if configuration.faults.latency > .zero {
            try? await Task.sleep(for: configuration.faults.latency)
        }
        switch faults.decide(elapsed: ContinuousClock.now - startedAt) {
        case .none: break
        case .fail(let status): return finish(status, "injected failure")
        case .throttle(let seconds):
            var response = finish(429, "injected throttle")
            response.headers[.retryAfter] = String(seconds)
            return response
        case .reset:
            stats.recordReset()
            await Self.reset(context.channel)
            return Response(status: .internalServerError)
        }

        let auth = BasicAuth.check(request.headers[.authorization], writeKey: configuration.writeKey)
        if auth == .invalid { return finish(401, "missing or invalid write key") }

        if let encoding = request.headers[.contentEncoding]?.lowercased(), encoding != "identity" {
            guard encoding == "gzip" else { return finish(400, "unsupported Content-Encoding \(encoding)") }
            do {
                raw = try GzipBody.decompress(raw, maxSize: IngestionLimits.maxBodyBytes + 1)
            } catch .tooLarge {
                return finish(configuration.oversizeStatus, "body over \(IngestionLimits.maxBodyBytes) bytes")
            } catch {
                return finish(400, "invalid gzip body")
            }
        }
        if raw.readableBytes > IngestionLimits.maxBodyBytes {
            return finish(configuration.oversizeStatus, "body over \(IngestionLimits.maxBodyBytes) bytes")
        }
        return try await ingest(raw, authorized: auth == .valid)
    }

    /// Validates, stores and counts one decoded body.
    private func ingest(_ body: ByteBuffer, authorized: Bool) async throws -> Response {
        let countOnly = configuration.countOnly
        if countOnly, authorized {
            return countOnlyIngest(body)
        }
        let hasStore = store != nil
        let (verdict, records) = body.withUnsafeReadableBytes { rawBytes -> (BatchVerdict, [StoredEvent]) in
            let bytes = rawBytes.bindMemory(to: UInt8.self)
            let verdict = inspector.inspect(bytes, authorized: authorized)
            guard hasStore, !countOnly, case .accept(let events, let ids, _, _) = verdict else { return (verdict, []) }
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

    /// Count-only mode with a valid Basic header: count the `batch` elements without validating
    /// them (``BatchSkimmer``), still applying Segment's event-count and event-size limits.
    private func countOnlyIngest(_ body: ByteBuffer) -> Response {
        let summary = body.withUnsafeReadableBytes { BatchSkimmer.skim($0.bindMemory(to: UInt8.self)) }
        guard let summary else { return finish(400, "the body has no \"batch\" array") }
        if summary.events > IngestionLimits.maxBatchEvents {
            return finish(configuration.oversizeStatus, "more than \(IngestionLimits.maxBatchEvents) events")
        }
        if summary.largestEvent > IngestionLimits.maxEventBytes {
            return finish(configuration.oversizeStatus, "an event is over 32 KiB")
        }
        stats.recordAccepted(count: summary.events, batchSize: summary.events, messageIds: [])
        stats.recordResponse(200)
        return Self.json(.ok, "{\"success\":true}")
    }

    /// Counts and builds an error (or injected) response.
    private func finish(_ status: Int, _ reason: String, close: Bool = false) -> Response {
        stats.recordResponse(status)
        var text: [UInt8] = Array("{\"success\":false,\"error\":".utf8)
        JSONStrings.appendQuoted(reason, to: &text)
        text.append(UInt8(ascii: "}"))
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
