import XCTest

@testable import MetaRouter

final class CircuitBreakerTests: XCTestCase {
    func testClosedOpenHalfOpenClosed() {
        var b = CircuitBreaker(configuration: BreakerConfiguration())
        XCTAssertEqual(b.acquire(now: .zero), .proceed(probe: false))
        XCTAssertFalse(b.recordFailure(now: .zero, probe: false, random: 0.5))
        XCTAssertFalse(b.recordFailure(now: .seconds(1), probe: false, random: 0.5))
        XCTAssertEqual(b.state, .closed(failures: 2))
        XCTAssertTrue(b.recordFailure(now: .seconds(2), probe: false, random: 0.5))
        XCTAssertEqual(b.state, .open(until: .seconds(12)))
        XCTAssertEqual(b.acquire(now: .seconds(5)), .waitUntil(.seconds(12)))
        XCTAssertEqual(b.acquire(now: .seconds(12)), .proceed(probe: true))
        XCTAssertEqual(b.acquire(now: .seconds(12)), .waitForProbe, "only one half-open probe")
        b.recordSuccess()
        XCTAssertEqual(b.state, .closed(failures: 0))
        XCTAssertEqual(b.acquire(now: .seconds(13)), .proceed(probe: false))
    }

    func testFailedProbeReopensWithDoubledCooldownUpToMax() {
        var b = CircuitBreaker(configuration: BreakerConfiguration())
        for _ in 0..<3 { _ = b.recordFailure(now: .zero, probe: false, random: 0.5) }
        var now = Duration.seconds(10)
        var cooldowns: [Duration] = []
        for _ in 0..<6 {
            XCTAssertEqual(b.acquire(now: now), .proceed(probe: true))
            XCTAssertTrue(b.recordFailure(now: now, probe: true, random: 0.5))
            cooldowns.append(b.lastCooldown)
            now = b.openUntil!
        }
        XCTAssertEqual(cooldowns, [20, 40, 80, 120, 120, 120].map { Duration.seconds($0) })
        b.recordSuccess()
        for _ in 0..<3 { _ = b.recordFailure(now: now, probe: false, random: 0.5) }
        XCTAssertEqual(b.lastCooldown, .seconds(10), "a success resets the cooldown")
    }

    func testJitterStaysWithinTwentyPercent() {
        for r in [0.0, 0.25, 0.5, 0.999_999] {
            let expected = 10 * (1 + 0.2 * (2 * r - 1))
            var b = CircuitBreaker(configuration: BreakerConfiguration())
            for _ in 0..<3 { _ = b.recordFailure(now: .zero, probe: false, random: r) }
            XCTAssertEqual(b.lastCooldown.seconds, expected, accuracy: 1e-6)
            XCTAssertGreaterThanOrEqual(b.lastCooldown, .seconds(8))
            XCTAssertLessThanOrEqual(b.lastCooldown, .seconds(12))
        }
    }

    func testFailuresWhileOpenDoNotExtendAndSuccessResetsCount() {
        var b = CircuitBreaker(configuration: BreakerConfiguration())
        _ = b.recordFailure(now: .zero, probe: false, random: 0.5)
        b.recordSuccess()
        _ = b.recordFailure(now: .zero, probe: false, random: 0.5)
        XCTAssertEqual(b.state, .closed(failures: 1))
        _ = b.recordFailure(now: .zero, probe: false, random: 0.5)
        _ = b.recordFailure(now: .zero, probe: false, random: 0.5)
        XCTAssertFalse(b.recordFailure(now: .seconds(3), probe: false, random: 0.5))
        XCTAssertEqual(b.openUntil, .seconds(10))
    }
}

final class RateLimiterTests: XCTestCase {
    func testTokenBucketMath() {
        var b = TokenBucket(rate: 10)
        XCTAssertEqual(b.reserve(10, now: .zero), .zero, "a full bucket allows one second of burst")
        XCTAssertEqual(b.reserve(5, now: .zero), .milliseconds(500))
        XCTAssertEqual(b.reserve(1, now: .milliseconds(200)), .milliseconds(400), "debt 5, refilled 2, minus 1")
        XCTAssertEqual(b.reserve(1, now: .seconds(5)), .zero, "refill stops at capacity")
        XCTAssertEqual(b.tokens, 9)
        var big = TokenBucket(rate: 100)
        XCTAssertEqual(big.reserve(250, now: .zero), .milliseconds(1500), "one request may exceed the bucket")
        var unlimited = TokenBucket(rate: 0)
        XCTAssertEqual(unlimited.reserve(1_000_000, now: .zero), .zero)
    }

    func testThrottleHalvesRatesAndSuccessRestores() {
        var l = RateLimiter(eventsPerSecond: 100, requestsPerSecond: 8, unlimitedFallback: 4)
        l.throttle(now: .zero)
        XCTAssertEqual(l.requests.rate, 4)
        XCTAssertEqual(l.events.rate, 50)
        l.throttle(now: .zero)
        XCTAssertEqual(l.requests.rate, 2)
        XCTAssertEqual(l.events.capacity, 2.5, "the burst stays a tenth of a second of the current rate")
        l.recover(now: .zero)
        XCTAssertEqual(l.requests.rate, 8)
        XCTAssertEqual(l.events.rate, 100)
        XCTAssertEqual(l.events.capacity, 10, "after a 429 and a success, the burst is what it was at the start")
        XCTAssertEqual(l.requests.capacity, 1)
        var u = RateLimiter(eventsPerSecond: 0, requestsPerSecond: 0, unlimitedFallback: 4)
        XCTAssertEqual(u.reserve(eventCount: 1000, now: .zero), .zero)
        u.throttle(now: .zero)
        XCTAssertEqual(u.requests.rate, 2, "unlimited requests fall back to concurrency/s, halved")
        XCTAssertTrue(u.events.isUnlimited)
        u.recover(now: .zero)
        XCTAssertTrue(u.requests.isUnlimited)
    }

    func testReserveWaitsForTheSlowerBucket() {
        var l = RateLimiter(eventsPerSecond: 10, requestsPerSecond: 100, unlimitedFallback: 1)
        XCTAssertEqual(l.reserve(eventCount: 1, now: .zero), .zero, "the burst is a tenth of a second of tokens")
        XCTAssertEqual(l.reserve(eventCount: 10, now: .zero), .seconds(1))
        XCTAssertEqual(l.reserve(eventCount: 20, now: .zero), .seconds(3))
    }
}
