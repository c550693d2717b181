import AsyncHTTPClient
import Collector
import CountOnlySink
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServerTestHarness
import ServerTesting
import ServiceLifecycle
import Testing

@Suite struct LifecycleTests {
    @Test func gracefulShutdownKeepsInFlightEvents() async throws {
        let path = temporaryPath(".ndjson")
        defer { removeStoreFiles(path) }
        try await Harness.run {
            $0.store = .ndjson(path)
            $0.faults.latency = .milliseconds(300)
        } body: { h in
            let n = 12
            let results = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<n {
                    group.addTask {
                        try await h.post(Fixtures.batch([Fixtures.track("a\(i)"), Fixtures.track("b\(i)")])).status
                    }
                }
                // Wait until every request has reached the server, then shut down while they are in flight.
                await h.server.waitForRequests(n)
                await h.stop()
                var statuses: [Int] = []
                for try await s in group { statuses.append(s) }
                return statuses
            }
            #expect(results == Array(repeating: 200, count: n))
            #expect(h.server.stats().events == 2 * n)
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 2 * n)
        }
    }

    @Test func manyConcurrentKeepAliveConnections() async throws {
        let server = CollectorServer(configuration: CollectorConfiguration(writeKey: testKey))
        let (ok, stats) = try await withRunningServer(server) { running in
            let base = await server.baseURL
            let ok = try await withHTTPClient(connectionsPerHost: 64) { client in
                let h = Harness(server: server, running: running, client: client, base: base)
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
            return (ok, server.stats())
        }
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

    /// A used port: `run()` throws the bind error, `listeningPort()` reports it, and
    /// `withRunningServer` throws it without running its body.
    @Test(arguments: ServerKind.allCases)
    func aPortInUseFailsRunAndStart(kind: ServerKind) async throws {
        try await Harness.run { h in
            let clash = ServiceUnderTest(kind, port: h.server.port)
            await #expect(throws: IOError.self) { try await clash.service.run() }
            await #expect(throws: IOError.self) { _ = try await clash.listeningPort() }
            let again = ServiceUnderTest(kind, port: h.server.port)
            await #expect(throws: IOError.self) { try await again.runAround { Issue.record("the body ran") } }
        }
    }

    /// `withRunningServer`: the body's error is what it throws, and the server has shut down by
    /// then (nothing listens on its port); a body that shuts the server down early ends normally.
    @Test(arguments: ServerKind.allCases)
    func aRunningServerEndsWithItsBody(kind: ServerKind) async throws {
        struct BodyFailed: Error {}
        let server = ServiceUnderTest(kind)
        await #expect(throws: BodyFailed.self) { try await server.runAround { throw BodyFailed() } }
        #expect(server.currentPort() > 0)
        #expect(throws: (any Error).self) { _ = try RawConnection(port: server.currentPort()) }
        let early = ServiceUnderTest(kind)
        try await early.runAround(shutDownFirst: true) {
            #expect(throws: (any Error).self) { _ = try RawConnection(port: early.currentPort()) }
        }
    }
}

/// One of the two servers, seen as a service with its port and event count.
struct ServiceUnderTest: Sendable {
    let service: any Service
    let listeningPort: @Sendable () async throws -> Int
    let currentPort: @Sendable () -> Int
    let events: @Sendable () -> Int
    /// Runs the server around `body` with `withRunningServer`; shuts it down first when asked.
    let runAround: @Sendable (_ shutDownFirst: Bool, _ body: @Sendable () async throws -> Void) async throws -> Void

    init(_ kind: ServerKind, port: Int = 0) {
        switch kind {
        case .collector:
            let server = CollectorServer(configuration: CollectorConfiguration(port: port, writeKey: testKey))
            service = server
            listeningPort = { try await server.listeningPort() }
            currentPort = { server.port }
            events = { server.stats().events }
            runAround = { early, body in
                try await withRunningServer(server) { running in
                    if early { await running.shutdown() }
                    try await body()
                }
            }
        case .countOnly:
            let server = CountOnlyServer(configuration: CountOnlyConfiguration(port: port, writeKey: testKey))
            service = server
            listeningPort = { try await server.listeningPort() }
            currentPort = { server.port }
            events = { server.stats().events }
            runAround = { early, body in
                try await withRunningServer(server) { running in
                    if early { await running.shutdown() }
                    try await body()
                }
            }
        }
    }
}

extension ServiceUnderTest {
    /// Runs the server around `body`.
    func runAround(shutDownFirst: Bool = false, _ body: @Sendable () async throws -> Void) async throws {
        try await runAround(shutDownFirst, body)
    }
}
