/// The run over time, for `report.html`: cumulative counters sampled about once a second.
///
/// The number of samples is bounded: past ``maxSamples`` every other sample is dropped and the
/// interval doubles, so a run of hours costs as much memory and page size as a run of minutes.
package struct RunTimeline: Sendable, Equatable {
    /// Cumulative counters at one moment of the run.
    package struct Sample: Sendable, Equatable {
        /// Seconds since the run started.
        package var seconds: Double
        package var delivered = 0
        package var deadLettered = 0
        /// Attempts that failed and were retried.
        package var retries = 0
        /// Times the circuit breaker opened.
        package var breakerOpened = 0
        /// Sends that waited for the rate limiter.
        package var rateLimitWaits = 0
        /// Responses by status (or `network_error`).
        package var responses: [String: Int] = [:]
        /// Bytes of the inputs read, and in all.
        package var bytesRead: Int64 = 0
        package var bytesTotal: Int64 = 0

        /// A sample `seconds` into the run.
        package init(
            seconds: Double, delivered: Int = 0, deadLettered: Int = 0, retries: Int = 0, breakerOpened: Int = 0,
            rateLimitWaits: Int = 0, responses: [String: Int] = [:], bytesRead: Int64 = 0, bytesTotal: Int64 = 0
        ) {
            self.seconds = seconds
            self.delivered = delivered
            self.deadLettered = deadLettered
            self.retries = retries
            self.breakerOpened = breakerOpened
            self.rateLimitWaits = rateLimitWaits
            self.responses = responses
            self.bytesRead = bytesRead
            self.bytesTotal = bytesTotal
        }
    }

    /// At most this many samples are kept.
    package static let maxSamples = 1200

    /// The samples, oldest first.
    package private(set) var samples: [Sample] = []
    /// Seconds between kept samples (grows when samples are thinned).
    package private(set) var interval: Double

    /// An empty timeline sampled every `interval` seconds.
    package init(interval: Double = 1) { self.interval = interval }

    /// Whether a sample taken at `seconds` is due.
    package func isDue(at seconds: Double) -> Bool {
        guard let last = samples.last else { return true }
        return seconds - last.seconds >= interval * 0.999
    }

    /// Adds `sample` if one is due (the last sample of a run is always added: `force`).
    package mutating func add(_ sample: Sample, force: Bool = false) {
        guard force || isDue(at: sample.seconds) else { return }
        samples.append(sample)
        if samples.count > Self.maxSamples {
            // Keep the first, then every other one: the shape stays, the size halves.
            samples = samples.enumerated().filter { $0.offset % 2 == 0 || $0.offset == samples.count - 1 }.map(\.element)
            interval *= 2
        }
    }

    /// The per-second rate of a counter between consecutive samples, at each sample's time.
    package func rate(_ value: (Sample) -> Int) -> [(x: Double, y: Double)] {
        zip(samples, samples.dropFirst()).map { a, b in
            let dt = max(b.seconds - a.seconds, 0.001)
            return (b.seconds, Double(value(b) - value(a)) / dt)
        }
    }

    /// Every status that appears in the samples, sorted.
    package var statuses: [String] {
        Array(Set(samples.flatMap { $0.responses.keys })).sorted()
    }
}
