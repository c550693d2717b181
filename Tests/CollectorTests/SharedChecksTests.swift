import Collector
import CountOnlySink
import Foundation
import GzipCodec
import IngestionChecks
import NIOCore
import ServerTestHarness
import ServerTesting
import Testing

/// The two servers that apply the shared ingestion checks.
enum ServerKind: String, CaseIterable, Sendable {
    case collector
    case countOnly

    /// Runs `body` with one, configured with `oversizeStatus`.
    func run<T>(oversizeStatus: Int, body: (any StoppableHarness) async throws -> T) async throws -> T {
        switch self {
        case .collector: return try await Harness.run({ $0.oversizeStatus = oversizeStatus }, body: body)
        case .countOnly: return try await CountOnlyHarness.run({ $0.oversizeStatus = oversizeStatus }, body: body)
        }
    }
}

/// A harness that can be stopped before its body ends.
protocol StoppableHarness: HTTPHarness {
    func stop() async
}

extension Harness: StoppableHarness {}
extension CountOnlyHarness: StoppableHarness {}

/// A request one of the shared checks refuses, and the refusal both servers must give.
struct RefusedRequest: Sendable, CustomTestStringConvertible {
    let name: String
    let body: [UInt8]
    var auth: String? = basic()
    var gzip = false
    var headers: [(String, String)] = []
    /// The status, or nil for the configured oversize status.
    let status: Int?
    let reason: String

    var testDescription: String { name }

    static let threeEvents = Array(Fixtures.batch([Fixtures.track("a"), Fixtures.track("b"), Fixtures.track("c")]).utf8)
    static let bigBody: [UInt8] = {
        let padding = String(repeating: "x", count: 900)
        return Array(Fixtures.batch((0..<600).map { Fixtures.track("m\($0)", extra: ",\"p\":\"\(padding)\"") }).utf8)
    }()
    static let manyEvents = Array(
        Fixtures.batch((0..<2501).map { _ in "{\"type\":\"track\",\"event\":\"E\",\"userId\":\"u\"}" }).utf8)
    static let hugeEvent = Array(
        Fixtures.batch([Fixtures.track("h", extra: ",\"p\":\"\(String(repeating: "y", count: 33 * 1024))\"")]).utf8)

    static let all: [RefusedRequest] = [
        RefusedRequest(
            name: "wrong key", body: threeEvents, auth: basic("other"), status: 401,
            reason: "missing or invalid write key"),
        RefusedRequest(name: "no key", body: threeEvents, auth: nil, status: 401, reason: "missing or invalid write key"),
        RefusedRequest(
            name: "a password", body: threeEvents, auth: basic(password: "secret"), status: 401,
            reason: "missing or invalid write key"),
        RefusedRequest(
            name: "unsupported content encoding", body: threeEvents, headers: [("Content-Encoding", "br")],
            status: 400, reason: "unsupported Content-Encoding br"),
        RefusedRequest(
            name: "corrupt gzip", body: [0x1F, 0x8B, 1, 2, 3], gzip: true, status: 400,
            reason: "invalid gzip body"),
        RefusedRequest(
            name: "truncated gzip", body: Array(try! GzipCodec.compress(threeEvents).dropLast(12)),
            gzip: true, status: 400, reason: "invalid gzip body"),
        RefusedRequest(name: "body over 500,000 bytes", body: bigBody, status: nil, reason: "body over 500000 bytes"),
        RefusedRequest(
            name: "gzip body over 500,000 bytes", body: try! GzipCodec.compress(bigBody), gzip: true,
            status: nil, reason: "body over 500000 bytes"),
        RefusedRequest(name: "2,501 events", body: manyEvents, status: nil, reason: "more than 2500 events"),
        RefusedRequest(name: "an event over 32 KiB", body: hugeEvent, status: nil, reason: "an event is over 32 KiB"),
        RefusedRequest(
            name: "no batch array", body: Array("{\"events\":[]}".utf8), status: 400,
            reason: "the body has no \"batch\" array"),
        RefusedRequest(
            name: "truncated batch", body: Array("{\"batch\":[1,".utf8), status: 400,
            reason: "the body has no \"batch\" array"),
        RefusedRequest(
            name: "not an object", body: Array("[]".utf8), status: 400,
            reason: "the body has no \"batch\" array"),
    ]
}

/// Each shared check gives the same verdict (status and body) from both servers.
@Suite struct SharedChecksTests {
    @Test(arguments: ServerKind.allCases, RefusedRequest.all)
    func bothServersRefuseAlike(kind: ServerKind, request: RefusedRequest) async throws {
        try await kind.run(oversizeStatus: 413) { h in
            let answer = try await h.post(
                request.body, auth: request.auth, gzip: request.gzip, headers: request.headers)
            await h.stop()
            let expected = String(decoding: IngestionRefusal.jsonBody(request.reason), as: UTF8.self)
            #expect(answer.status == (request.status ?? 413), "\(kind): \(answer.body)")
            #expect(answer.body == expected, "\(kind)")
        }
    }

    /// The same requests through ``IngestionPolicy`` alone, with no server: the verdict the
    /// servers above must both pass on.
    @Test(arguments: RefusedRequest.all)
    func policyRefuses(request: RefusedRequest) throws {
        let policy = IngestionPolicy(writeKey: testKey, oversizeStatus: 413)
        var scratch = ByteBuffer()
        let encoding = request.headers.first { $0.0 == "Content-Encoding" }?.1 ?? (request.gzip ? "gzip" : nil)
        let refusal = #expect(throws: IngestionRefusal.self) {
            _ = try policy.check(
                authorization: request.auth, contentEncoding: encoding, body: ByteBuffer(bytes: request.body),
                headerRequired: true, scratch: &scratch)
        }
        #expect(refusal?.status == (request.status ?? 413))
        #expect(refusal?.reason == request.reason)
    }

    @Test(arguments: ServerKind.allCases)
    func bothServersAcceptPlainAndGzipBatches(kind: ServerKind) async throws {
        try await kind.run(oversizeStatus: 400) { h in
            let plain = try await h.post(RefusedRequest.threeEvents)
            let zipped = try await h.post(try gzip(RefusedRequest.threeEvents), gzip: true)
            let lowerScheme = "basic " + Data("\(testKey):".utf8).base64EncodedString()
            let lower = try await h.post(RefusedRequest.threeEvents, auth: lowerScheme)
            let stats = try await h.get("/stats")
            await h.stop()
            #expect([plain.status, zipped.status, lower.status] as [Int] == [200, 200, 200])
            #expect(plain.body == "{\"success\":true}")
            #expect(stats.body.contains("\"events\":9"), "\(stats.body)")
        }
    }

    @Test func policyPassesAWellFormedBatch() throws {
        let policy = IngestionPolicy(writeKey: testKey, oversizeStatus: 400)
        var scratch = ByteBuffer()
        let zipped = try GzipCodec.compress(RefusedRequest.threeEvents)
        let checked = try policy.check(
            authorization: basic(), contentEncoding: "GZIP", body: ByteBuffer(bytes: zipped), headerRequired: true,
            scratch: &scratch)
        #expect(checked.authorized)
        #expect(checked.shape == BatchSkimmer.Summary(events: 3, largestEvent: Fixtures.track("a").utf8.count))
        #expect(Array(checked.body.readableBytesView) == RefusedRequest.threeEvents)
        // Without a header the full collector goes on (the key may be in the body); the sink does not.
        let open = try policy.check(
            authorization: nil, contentEncoding: nil, body: ByteBuffer(bytes: RefusedRequest.threeEvents),
            headerRequired: false, scratch: &scratch)
        #expect(!open.authorized)
        #expect(open.shape == nil)
    }
}
