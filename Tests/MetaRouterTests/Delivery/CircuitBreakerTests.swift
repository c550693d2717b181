import Foundation
@_spi(PerLine) import MetaRouter
import Testing

@_spi(PerLine) @testable import MetaRouterDelivery

@Suite struct CircuitBreakerTests {
    @Test func closedOpenHalfOpenClosed() {
        var b = CircuitBreaker(configuration: BreakerConfiguration())
        #expect(b.acquire(now: .zero) == .proceed(probe: false))
        let r1 = b.recordFailure(now: .zero, probe: false, random: 0.5)
        #expect(!r1)
        let r1b = b.recordFailure(now: .seconds(1), probe: false, random: 0.5)
        #expect(!r1b)
        #expect(b.state == .closed(failures: 2))
        let r1c = b.recordFailure(now: .seconds(2), probe: false, random: 0.5)
        #expect(r1c)
        #expect(b.state == .open(until: .seconds(12)))
        #expect(b.acquire(now: .seconds(5)) == .waitUntil(.seconds(12)))
        #expect(b.acquire(now: .seconds(12)) == .proceed(probe: true))
        #expect(b.acquire(now: .seconds(12)) == .waitForProbe, "only one half-open probe")
        b.recordSuccess()
        #expect(b.state == .closed(failures: 0))
        #expect(b.acquire(now: .seconds(13)) == .proceed(probe: false))
    }

    @Test func failedProbeReopensWithDoubledCooldownUpToMax() {
        var b = CircuitBreaker(configuration: BreakerConfiguration())
        for _ in 0..<3 { _ = b.recordFailure(now: .zero, probe: false, random: 0.5) }
        var now = Duration.seconds(10)
        var cooldowns: [Duration] = []
        for _ in 0..<6 {
            #expect(b.acquire(now: now) == .proceed(probe: true))
            let r2 = b.recordFailure(now: now, probe: true, random: 0.5)
            #expect(r2)
            cooldowns.append(b.lastCooldown)
            now = b.openUntil!
        }
        #expect(cooldowns == [20, 40, 80, 120, 120, 120].map { Duration.seconds($0) })
        b.recordSuccess()
        for _ in 0..<3 { _ = b.recordFailure(now: now, probe: false, random: 0.5) }
        #expect(b.lastCooldown == .seconds(10), "a success resets the cooldown")
    }

    @Test(arguments: [0.0, 0.25, 0.5, 0.999_999])
    func jitterStaysWithinTwentyPercent(r: Double) {
        let expected = 10 * (1 + 0.2 * (2 * r - 1))
        var b = CircuitBreaker(configuration: BreakerConfiguration())
        for _ in 0..<3 { _ = b.recordFailure(now: .zero, probe: false, random: r) }
        #expect(abs(b.lastCooldown.seconds - expected) < 1e-6)
        #expect(b.lastCooldown >= .seconds(8))
        #expect(b.lastCooldown <= .seconds(12))
    }

    @Test func failuresWhileOpenDoNotExtendAndSuccessResetsCount() {
        var b = CircuitBreaker(configuration: BreakerConfiguration())
        _ = b.recordFailure(now: .zero, probe: false, random: 0.5)
        b.recordSuccess()
        _ = b.recordFailure(now: .zero, probe: false, random: 0.5)
        #expect(b.state == .closed(failures: 1))
        _ = b.recordFailure(now: .zero, probe: false, random: 0.5)
        _ = b.recordFailure(now: .zero, probe: false, random: 0.5)
        let reopened = b.recordFailure(now: .seconds(3), probe: false, random: 0.5)
        #expect(!reopened)
        #expect(b.openUntil == .seconds(10))
    }
}

@Suite struct RateLimiterTests {
    @Test func tokenBucketMath() {
        var b = TokenBucket(rate: 10)
        #expect(b.reserve(10, now: .zero) == .zero, "a full bucket allows one second of burst")
        #expect(b.reserve(5, now: .zero) == .milliseconds(500))
        #expect(b.reserve(1, now: .milliseconds(200)) == .milliseconds(400), "debt 5, refilled 2, minus 1")
        #expect(b.reserve(1, now: .seconds(5)) == .zero, "refill stops at capacity")
        #expect(b.tokens == 9)
        var big = TokenBucket(rate: 100)
        #expect(big.reserve(250, now: .zero) == .milliseconds(1500), "one request may exceed the bucket")
        var unlimited = TokenBucket(rate: 0)
        #expect(unlimited.reserve(1_000_000, now: .zero) == .zero)
    }

    @Test func throttleHalvesRatesAndSuccessRestores() {
        var l = RateLimiter(eventsPerSecond: 100, requestsPerSecond: 8, unlimitedFallback: 4)
        l.throttle(now: .zero)
        #expect(l.requests.rate == 4)
        #expect(l.events.rate == 50)
        l.throttle(now: .zero)
        #expect(l.requests.rate == 2)
        #expect(l.events.capacity == 2.5, "the burst stays a tenth of a second of the current rate")
        l.recover(now: .zero)
        #expect(l.requests.rate == 8)
        #expect(l.events.rate == 100)
        #expect(l.events.capacity == 10, "after a 429 and a success, the burst is what it was at the start")
        #expect(l.requests.capacity == 1)
        var u = RateLimiter(eventsPerSecond: 0, requestsPerSecond: 0, unlimitedFallback: 4)
        #expect(u.reserve(eventCount: 1000, now: .zero) == .zero)
        u.throttle(now: .zero)
        #expect(u.requests.rate == 2, "unlimited requests fall back to concurrency/s, halved")
        #expect(u.events.isUnlimited)
        u.recover(now: .zero)
        #expect(u.requests.isUnlimited)
    }

    @Test func reserveWaitsForTheSlowerBucket() {
        var l = RateLimiter(eventsPerSecond: 10, requestsPerSecond: 100, unlimitedFallback: 1)
        #expect(l.reserve(eventCount: 1, now: .zero) == .zero, "the burst is a tenth of a second of tokens")
        #expect(l.reserve(eventCount: 10, now: .zero) == .seconds(1))
        #expect(l.reserve(eventCount: 20, now: .zero) == .seconds(3))
    }
}
