import Collector
import Testing

/// The collector's quota: a token bucket of events, a second's worth, refilled at its rate.
@Suite struct EventRateLimitTests {
    @Test func aSecondsWorthIsAdmittedThenTheRateRefills() {
        let limit = EventRateLimit(rate: 1000)
        let start = ContinuousClock.now
        #expect(limit.admit(600, now: start))
        #expect(limit.admit(400, now: start))
        #expect(!limit.admit(1, now: start), "the second's quota is used up")
        #expect(!limit.admit(200, now: start + .milliseconds(100)), "100 ms refill 100 events")
        #expect(limit.admit(100, now: start + .milliseconds(100)))
        #expect(limit.admit(1000, now: start + .seconds(5)), "never more than a second's worth is saved")
        #expect(!limit.admit(1, now: start + .seconds(5)))
    }

    @Test func overAnHourTheAdmittedEventsStayWithinTheRate() {
        let limit = EventRateLimit(rate: 250)
        var now = ContinuousClock.now
        var admitted = 0
        for _ in 0..<36_000 {  // a batch of 100 asked for every 100 ms: four times the rate
            if limit.admit(100, now: now) { admitted += 100 }
            now += .milliseconds(100)
        }
        #expect(admitted <= 250 * 3600 + 250 && admitted >= 250 * 3600 - 100, "\(admitted)")
    }
}
