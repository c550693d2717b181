import IngestionChecks
import JSONCore
import NIOCore
import SegmentAPI
import SimpleAnalytics

/// The collector's SimpleAnalytics endpoint, `POST {base}/simpleanalytics`: takes the payloads
/// the SimpleAnalytics Swift package submits, checks them (``SimpleAnalyticsPayload``), keeps
/// each accepted one as one line of an NDJSON file and answers as the package expects.
///
/// Every answer is `{"message":"..."}`. 200 means stored: the line was written before the
/// answer. Anything else makes the app keep its entries and submit them again, so a payload is
/// refused (4xx, with the field that is wrong) or not taken (5xx) but never dropped after a 200.
struct SimpleAnalyticsReceiver: Sendable {
    /// `{base}/simpleanalytics`.
    let path: String
    /// Where accepted payloads go; nil when the collector has no store for them (the path then
    /// answers 404, and the app keeps its data).
    let store: NDJSONStore?
    let stats: StatsRecorder

    /// The path under `basePath`.
    static func path(basePath: String) -> String { IngestionPaths.normalized(basePath) + "/simpleanalytics" }

    init(basePath: String, store: NDJSONStore?, stats: StatsRecorder) {
        self.path = Self.path(basePath: basePath)
        self.store = store
        self.stats = stats
    }

    /// Answers one request to ``path``.
    func respond(to request: CollectorRequest) async -> CollectorResponse {
        guard let body = request.body else {
            stats.recordRequest(bodyBytes: 0)
            var response = answer(413, "the body is over \(SegmentLimits.maxRawBodyBytes) bytes")
            response.closesConnection = true
            return response
        }
        stats.recordRequest(bodyBytes: body.readableBytes)
        guard request.method == .POST else { return answer(405, "use POST") }
        if let encoding = request.header("content-encoding"), encoding.lowercased() != "identity" {
            return answer(415, "Content-Encoding \(encoding) is not supported: send the JSON as is")
        }
        guard let store else {
            return answer(404, "this collector keeps no SimpleAnalytics payloads: start it with --store or --simpleanalytics-store")
        }
        let bytes = Array(body.readableBytesView)
        let payload: SimpleAnalyticsPayload
        do {
            payload = try SimpleAnalyticsPayload(parsing: bytes)
        } catch {
            return answer(400, "invalid SimpleAnalytics payload: \(error)")
        }
        do {
            try await store.append([StoredEvent(payloadLine: Self.line(of: bytes))])
        } catch {
            return answer(500, "storage failed: \(error)")
        }
        return answer(200, "stored \(Self.count(payload.items.count, "item")) and \(Self.count(payload.counters.count, "counter"))")
    }

    /// The body as one line: as received, unless it spans lines (pretty-printed): then
    /// re-encoded compactly (JSONCore keeps numbers and strings exact).
    static func line(of bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(0x0A) || bytes.contains(0x0D), let value = try? JSONParser.parse(bytes) else { return bytes }
        var out: [UInt8] = []
        JSONWriter.write(value, into: &out)
        return out
    }

    private static func count(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }

    /// Counts and builds `{"message": text}` with `status`.
    private func answer(_ status: Int, _ text: String) -> CollectorResponse {
        stats.recordResponse(status)
        var json: [UInt8] = Array(#"{"message":"#.utf8)
        JSONStrings.appendQuoted(text, to: &json)
        json.append(UInt8(ascii: "}"))
        return .json(status, json)
    }
}

extension StoredEvent {
    /// A SimpleAnalytics payload as one stored line (it has no messageId).
    init(payloadLine: [UInt8]) {
        json = payloadLine
        messageId = nil
    }
}

extension CollectorConfiguration {
    /// The NDJSON file SimpleAnalytics payloads go to: ``simpleAnalyticsStore`` when set, else
    /// next to ``store`` (`events.ndjson` or `events.sqlite` → `events.simpleanalytics.ndjson`),
    /// else none.
    public var simpleAnalyticsStorePath: String? {
        guard servesSimpleAnalytics else { return nil }
        if let simpleAnalyticsStore { return simpleAnalyticsStore }
        switch store {
        case .none: return nil
        case .ndjson(let path), .sqlite(let path): return Self.simpleAnalyticsPath(beside: path)
        }
    }

    /// `DIR/NAME.simpleanalytics.ndjson` for a store at `DIR/NAME.EXT` (`.gz` not special).
    package static func simpleAnalyticsPath(beside path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let nameStart = slash.map { path.index(after: $0) } ?? path.startIndex
        var stem = path[...]
        if let dot = path[nameStart...].lastIndex(of: "."), dot > nameStart { stem = path[..<dot] }
        return stem + ".simpleanalytics.ndjson"
    }

    /// Opens the SimpleAnalytics store, or returns nil when there is none.
    func openSimpleAnalyticsStore() throws -> NDJSONStore? {
        try simpleAnalyticsStorePath.map { try NDJSONStore(path: $0) }
    }
}
