import AsyncHTTPClient
import Collector
import CountOnlySink
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Testing

@Suite struct LifecycleTests {
    @Test func gracefulShutdownKeepsInFlightEvents() async throws {
        let path = temporaryPath(".ndjson")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let h = try await Harness.start {
            $0.store = .ndjson(path)
            $0.faults.latency = .milliseconds(300)
        }
        let n = 12
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<n {
                group.addTask {
                    try await h.post(Fixtures.batch([Fixtures.track("a\(i)"), Fixtures.track("b\(i)")])).status
                }
            }
            // Wait until every request has reached the server, then shut down while they are in flight.
            await h.server.waitForRequests(n)
            try await h.server.shutdown()
            var statuses: [Int] = []
            for try await s in group { statuses.append(s) }
            return statuses
        }
        #expect(results == Array(repeating: 200, count: n))
        #expect(h.server.stats().events == 2 * n)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2 * n)
    }

    @Test func manyConcurrentKeepAliveConnections() async throws {
        let server = CollectorServer(configuration: CollectorConfiguration(writeKey: testKey))
        _ = try await server.start()
        let base = await server.baseURL
        let ok = try await withHTTPClient(connectionsPerHost: 64) { client in
            let h = Harness(server: server, client: client, base: base)
            return try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<64 {
                    group.addTask {
                        var ok = 0
                        for i in 0..<5 {
                            let r = try await h.post(Fixtures.batch([Fixtures.track("w\(worker)-\(i)")]))
                            if r.status == 200 { ok += 1 }
                        }
                        return ok
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        let stats = server.stats()
        try await server.shutdown()
        #expect(ok == 320)
        #expect(stats.events == 320)
        #expect(stats.unique == 320)
    }

    /// Each server as a `Service` in a `ServiceGroup`: nothing listens before `run()`, the port
    /// comes from `listeningPort()`, and graceful shutdown of the group ends `run()`.
    @Test(arguments: ServerKind.allCases)
    func runsAsAServiceUntilGracefulShutdown(kind: ServerKind) async throws {
        let server = ServiceUnderTest(kind)
        #expect(server.currentPort() == 0)
        let group = ServiceGroup(configuration: .init(services: [server.service], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        let bound = try await server.listeningPort()
        #expect(bound > 0)
        #expect(server.currentPort() == bound)
        let h = Posting(client: .shared, base: "http://127.0.0.1:\(bound)")
        let status = try await h.post(Fixtures.batch([Fixtures.track("s")])).status
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(status == 200)
        #expect(server.events() == 1)
        #expect(throws: (any Error).self) { _ = try RawConnection(port: bound) }
    }

    /// Cancelling the task that runs a server ends its `run()` too.
    @Test(arguments: ServerKind.allCases)
    func cancellationEndsRun(kind: ServerKind) async throws {
        let server = ServiceUnderTest(kind)
        let running = Task { try await server.service.run() }
        let bound = try await server.listeningPort()
        running.cancel()
        _ = await running.result
        #expect(throws: (any Error).self) { _ = try RawConnection(port: bound) }
    }

    /// A used port: `run()` throws the bind error, `listeningPort()` reports it, `start()` fails.
    @Test(arguments: ServerKind.allCases)
    func aPortInUseFailsRunAndStart(kind: ServerKind) async throws {
        let h = try await Harness.start()
        let clash = ServiceUnderTest(kind, port: h.server.port)
        await #expect(throws: IOError.self) { try await clash.service.run() }
        await #expect(throws: IOError.self) { _ = try await clash.listeningPort() }
        await #expect(throws: IOError.self) { _ = try await ServiceUnderTest(kind, port: h.server.port).start() }
        try await h.stop()
    }

    @Test func startTwiceFails() async throws {
        let h = try await Harness.start()
        await #expect(throws: (any Error).self) { _ = try await h.server.start() }
        try await h.stop()
        let c = try await CountOnlyHarness.start()
        await #expect(throws: (any Error).self) { _ = try await c.server.start() }
        try await c.stop()
    }
}

/// Posts to any base URL.
struct Posting: HTTPHarness {
    let client: HTTPClient
    let base: String
}

/// One of the two servers, seen as a service with its port and event count.
struct ServiceUnderTest: Sendable {
    let service: any Service
    let listeningPort: @Sendable () async throws -> Int
    let currentPort: @Sendable () -> Int
    let events: @Sendable () -> Int
    let start: @Sendable () async throws -> Int

    init(_ kind: ServerKind, port: Int = 0) {
        switch kind {
        case .collector:
            let server = CollectorServer(configuration: CollectorConfiguration(port: port, writeKey: testKey))
            service = server
            listeningPort = { try await server.listeningPort() }
            currentPort = { server.port }
            events = { server.stats().events }
            start = { try await server.start() }
        case .countOnly:
            let server = CountOnlyServer(configuration: CountOnlyConfiguration(port: port, writeKey: testKey))
            service = server
            listeningPort = { try await server.listeningPort() }
            currentPort = { server.port }
            events = { server.stats().events }
            start = { try await server.start() }
        }
    }
}
