import AsyncHTTPClient
import Collector
import Foundation
import NIOCore
import XCTest

final class LifecycleTests: XCTestCase {
    func testGracefulShutdownKeepsInFlightEvents() async throws {
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
            while await h.server.stats().requests < n { await Task.yield() }
            try await h.server.shutdown()
            var statuses: [Int] = []
            for try await s in group { statuses.append(s) }
            return statuses
        }
        try await h.client.shutdown()
        XCTAssertEqual(results, Array(repeating: 200, count: n))
        let stats = await h.server.stats()
        XCTAssertEqual(stats.events, 2 * n)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2 * n)
    }

    func testManyConcurrentKeepAliveConnections() async throws {
        let server = CollectorServer(configuration: CollectorConfiguration(writeKey: Harness.key))
        _ = try await server.start()
        let base = await server.baseURL
        var config = HTTPClient.Configuration()
        config.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
        let h = Harness(server: server, client: client, base: base)
        let ok = try await withThrowingTaskGroup(of: Int.self) { group in
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
        XCTAssertEqual(ok, 320)
        let stats = await server.stats()
        XCTAssertEqual(stats.events, 320)
        XCTAssertEqual(stats.unique, 320)
        try await h.stop()
    }

    func testStartTwiceFailsAndPortInUseFails() async throws {
        let h = try await Harness.start()
        do {
            _ = try await h.server.start()
            XCTFail("second start must fail")
        } catch {}
        let port = await h.server.port
        let clash = CollectorServer(configuration: CollectorConfiguration(port: port, writeKey: "k"))
        do {
            _ = try await clash.start()
            XCTFail("binding a used port must fail")
        } catch {}
        try await h.stop()
    }
}
