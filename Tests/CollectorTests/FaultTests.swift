import Collector
import ServerTestHarness
import ServerTesting
import Testing

@Suite struct FaultTests {
    let body = Fixtures.batch([Fixtures.track("a")])

    @Test func failFirstThenSucceed() async throws {
        try await Harness.run {
            $0.faults.failFirst = 2
            $0.faults.failureStatus = 502
        } body: { h in
            // Requests to other paths do not use up the failures.
            let other = try await h.get("/elsewhere")
            #expect(other.status == 404)
            var statuses: [Int] = []
            for _ in 0..<4 { statuses.append(try await h.post(body).status) }
            let stats = h.server.stats()
            await h.stop()
            #expect(statuses == [502, 502, 200, 200])
            #expect(stats.events == 2)
            #expect(stats.requests == 5)
            #expect(stats.responses == ["502": 2, "200": 2, "404": 1])
        }
    }

    @Test(arguments: [500, 502, 503, 408])
    func failureRateWithEachStatus(status: Int) async throws {
        try await Harness.run {
            $0.faults.failureRate = 1
            $0.faults.failureStatus = status
        } body: { h in
            let answer = try await h.post(body)
            let events = h.server.stats().events
            await h.stop()
            #expect(answer.status == status)
            #expect(answer.body == "{\"success\":false,\"error\":\"injected failure\"}")
            #expect(events == 0)
        }
    }

    @Test func throttleSendsRetryAfter() async throws {
        try await Harness.run {
            $0.faults.throttleRate = 1
            $0.faults.retryAfter = 7
        } body: { h in
            let r = try await h.post(body)
            await h.stop()
            #expect(r.status == 429)
            #expect(r.headers.first(name: "Retry-After") == "7")
        }
    }

    @Test func connectionReset() async throws {
        try await Harness.run {
            $0.faults.resetRate = 1
        } body: { h in
            await #expect(throws: (any Error).self) { _ = try await h.post(body) }
            let stats = h.server.stats()
            await h.stop()
            #expect(stats.resets >= 1)
            #expect(stats.resets == stats.requests)
            #expect(stats.events == 0)
            #expect(stats.responses == [:])
        }
    }

    @Test func downWindow() async throws {
        try await Harness.run {
            $0.faults.down = DownWindow(start: .zero, duration: .seconds(3600))
        } body: { down in
            let first = try await down.post(body).status
            let second = try await down.post(body).status
            await down.stop()
            #expect([first, second] == [503, 503])
            try await Harness.run {
                $0.faults.down = DownWindow(start: .seconds(3600), duration: .seconds(10))
            } body: { later in
                let fine = try await later.post(body).status
                await later.stop()
                #expect(fine == 200)
            }
        }
    }

    @Test(arguments: [(99, false), (100, true), (149, true), (150, false)])
    func downWindowBounds(milliseconds: Int, inside: Bool) {
        let window = DownWindow(start: .milliseconds(100), duration: .milliseconds(50))
        #expect(window.contains(.milliseconds(milliseconds)) == inside)
    }

    @Test func addedLatency() async throws {
        try await Harness.run {
            $0.faults.latency = .milliseconds(300)
        } body: { h in
            let clock = ContinuousClock()
            let start = clock.now
            let status = try await h.post(body).status
            let elapsed = clock.now - start
            await h.stop()
            #expect(status == 200)
            #expect(elapsed >= .milliseconds(300))
        }
    }

    /// Sends `count` requests one after another; a reset shows as -1.
    private func sequence(seed: UInt64, count: Int) async throws -> [Int] {
        return try await Harness.run {
            $0.faults.seed = seed
            $0.faults.failureRate = 0.3
            $0.faults.throttleRate = 0.3
            $0.faults.resetRate = 0.1
        } body: { h in
            var statuses: [Int] = []
            for _ in 0..<count {
                do {
                    statuses.append(try await h.post(body).status)
                } catch {
                    statuses.append(-1)
                }
            }
            let stats = h.server.stats()
            await h.stop()
            #expect(stats.requests == count)
            return statuses
        }
    }

    @Test func faultsAreReproducibleForASeed() async throws {
        let a = try await sequence(seed: 42, count: 30)
        let b = try await sequence(seed: 42, count: 30)
        let c = try await sequence(seed: 43, count: 30)
        #expect(a == b)
        #expect(a != c)
        #expect(a.contains(200))
        #expect(a.contains(500))
        #expect(a.contains(429))
    }
}
