import AsyncHTTPClient
import Collector
import Foundation
import NIOCore
import NIOHTTP1
import XCTest

final class FaultTests: XCTestCase {
    let body = Fixtures.batch([Fixtures.track("a")])

    func testFailFirstThenSucceed() async throws {
        let h = try await Harness.start {
            $0.faults.failFirst = 2
            $0.faults.failureStatus = 502
        }
        // Requests to other paths do not use up the failures.
        let other = try await h.get("/elsewhere")
        XCTAssertEqual(other.status, 404)
        var statuses: [Int] = []
        for _ in 0..<4 { statuses.append(try await h.post(body).status) }
        XCTAssertEqual(statuses, [502, 502, 200, 200])
        let stats = await h.server.stats()
        XCTAssertEqual(stats.events, 2)
        XCTAssertEqual(stats.requests, 5)
        XCTAssertEqual(stats.responses, ["502": 2, "200": 2, "404": 1])
        try await h.stop()
    }

    func testFailureRateWithEachStatus() async throws {
        for status in [500, 502, 503, 408] {
            let h = try await Harness.start {
                $0.faults.failureRate = 1
                $0.faults.failureStatus = status
            }
            do { let status = try await h.post(body).status; XCTAssertEqual(status, status) }
            let events = await h.server.stats().events
            XCTAssertEqual(events, 0)
            try await h.stop()
        }
    }

    func testThrottleSendsRetryAfter() async throws {
        let h = try await Harness.start {
            $0.faults.throttleRate = 1
            $0.faults.retryAfter = 7
        }
        let r = try await h.post(body)
        XCTAssertEqual(r.status, 429)
        XCTAssertEqual(r.headers.first(name: "Retry-After"), "7")
        try await h.stop()
    }

    func testConnectionReset() async throws {
        let h = try await Harness.start { $0.faults.resetRate = 1 }
        do {
            let r = try await h.post(body)
            XCTFail("expected a reset, got \(r.status)")
        } catch {
            // the connection was reset
        }
        let stats = await h.server.stats()
        XCTAssertGreaterThanOrEqual(stats.resets, 1)
        XCTAssertEqual(stats.resets, stats.requests)
        XCTAssertEqual(stats.events, 0)
        XCTAssertEqual(stats.responses, [:])
        try await h.stop()
    }

    func testDownWindow() async throws {
        let down = try await Harness.start { $0.faults.down = DownWindow(start: .zero, duration: .seconds(3600)) }
        do { let status = try await down.post(body).status; XCTAssertEqual(status, 503) }
        do { let status = try await down.post(body).status; XCTAssertEqual(status, 503) }
        try await down.stop()
        let later = try await Harness.start { $0.faults.down = DownWindow(start: .seconds(3600), duration: .seconds(10)) }
        do { let status = try await later.post(body).status; XCTAssertEqual(status, 200) }
        try await later.stop()
        let window = DownWindow(start: .milliseconds(100), duration: .milliseconds(50))
        XCTAssertFalse(window.contains(.milliseconds(99)))
        XCTAssertTrue(window.contains(.milliseconds(100)))
        XCTAssertTrue(window.contains(.milliseconds(149)))
        XCTAssertFalse(window.contains(.milliseconds(150)))
    }

    func testAddedLatency() async throws {
        let h = try await Harness.start { $0.faults.latency = .milliseconds(300) }
        let clock = ContinuousClock()
        let start = clock.now
        do { let status = try await h.post(body).status; XCTAssertEqual(status, 200) }
        XCTAssertGreaterThanOrEqual(clock.now - start, .milliseconds(300))
        try await h.stop()
    }

    /// Sends `count` requests one after another; a reset shows as -1.
    private func sequence(seed: UInt64, count: Int) async throws -> [Int] {
        let h = try await Harness.start {
            $0.faults.seed = seed
            $0.faults.failureRate = 0.3
            $0.faults.throttleRate = 0.3
            $0.faults.resetRate = 0.1
        }
        var statuses: [Int] = []
        for _ in 0..<count {
            do {
                statuses.append(try await h.post(body).status)
            } catch {
                statuses.append(-1)
            }
        }
        let stats = await h.server.stats()
        XCTAssertEqual(stats.requests, count)
        try await h.stop()
        return statuses
    }

    func testFaultsAreReproducibleForASeed() async throws {
        let a = try await sequence(seed: 42, count: 30)
        let b = try await sequence(seed: 42, count: 30)
        let c = try await sequence(seed: 43, count: 30)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        XCTAssertTrue(a.contains(200))
        XCTAssertTrue(a.contains(500))
        XCTAssertTrue(a.contains(429))
    }
}
