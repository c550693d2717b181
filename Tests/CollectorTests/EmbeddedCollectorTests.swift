import AsyncHTTPClient
import Collector
import Foundation
import Logging
import NIOPosix
import ServerTestHarness
import ServiceLifecycle
import Testing

/// `EmbeddedCollector`, the collector that `ingestion.host: embedded` runs in `mr-replay`, as a
/// Service of a `ServiceGroup`.
@Suite struct EmbeddedCollectorTests {
    static func collector(_ path: String) -> EmbeddedCollector {
        EmbeddedCollector(
            writeKey: testKey, outputPath: path, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "test"))
    }

    /// Once asked for its address it serves `/v1/batch` (not `/simpleanalytics`) until the group
    /// shuts down; then it stops listening, and its file holds what it accepted.
    @Test(.timeLimit(.minutes(1))) func servesUntilTheGroupShutsDownThenStops() async throws {
        let path = temporaryPath(".ndjson")
        defer { removeStoreFiles(path) }
        let collector = Self.collector(path)
        let group = ServiceGroup(configuration: .init(services: [collector], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        let url = try await collector.baseURL()
        let port = try #require(url.split(separator: ":").last.flatMap { Int($0) })
        #expect(url == "http://127.0.0.1:\(port)")
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let posting = Posting(client: client, base: url)
        // The client is shut down whatever the posts do: one dropped while still up fails
        // AsyncHTTPClient's debug precondition and takes the test process down.
        var statuses: [Int] = []
        var failure: (any Error)?
        do {
            statuses.append(try await posting.post(Fixtures.batch([Fixtures.track("e1"), Fixtures.track("e2")])).status)
            statuses.append(try await posting.post("{}", path: "/simpleanalytics").status)
        } catch { failure = error }
        try await client.shutdown()
        if let failure { throw failure }
        #expect(statuses == [200, 404], "the batch is stored; a run sends /v1/batch only")
        _ = try RawConnection(port: port)  // still listening: only the group's shutdown stops it
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(throws: (any Error).self) { _ = try RawConnection(port: port) }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
    }

    /// A group that ends before the run asks for the address (the run stopped on a usage error,
    /// or another run held the state directory): nothing listened, no file was created, and a
    /// late request for the address fails instead of waiting.
    @Test(.timeLimit(.minutes(1))) func aGroupThatEndsBeforeTheRunAsksLeavesNoFile() async throws {
        let path = temporaryPath(".ndjson")
        defer { removeStoreFiles(path) }
        let collector = Self.collector(path)
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: collector),
                    .init(service: EndsAtOnce(), successTerminationBehavior: .gracefullyShutdownGroup),
                ],
                logger: Logger(label: "test")))
        try await group.run()
        #expect(!FileManager.default.fileExists(atPath: path))
        await #expect(throws: (any Error).self) { _ = try await collector.baseURL() }
    }
}

/// A service that returns at once (a run that failed before it sent anything).
private struct EndsAtOnce: Service {
    func run() async throws {}
}
