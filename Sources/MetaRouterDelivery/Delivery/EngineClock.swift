import Foundation

/// Time as the engine sees it; tests inject a manual clock to drive backoff and rate limits exactly.
public protocol EngineClock: Sendable {
    /// Monotonic time since an arbitrary origin.
    var now: Duration { get }
    /// Wall-clock time, for `sentAt` and HTTP-date `Retry-After`.
    var wallClock: Date { get }
    /// Suspends until ``now`` reaches `deadline`. Throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Duration) async throws
}

/// The real clock: `ContinuousClock` for monotonic time and `Date()` for wall time.
public struct SystemEngineClock: EngineClock {
    private let origin: ContinuousClock.Instant

    /// Creates a clock whose origin is now.
    public init() { origin = ContinuousClock.now }

    /// Monotonic time since this clock was created.
    public var now: Duration { ContinuousClock.now - origin }

    /// The current date.
    public var wallClock: Date { Date() }

    /// Sleeps on `ContinuousClock` until `deadline`.
    public func sleep(until deadline: Duration) async throws {
        try await ContinuousClock().sleep(until: origin.advanced(by: deadline), tolerance: nil)
    }
}

/// Randomness for jitter and ids, injectable for tests.
public protocol RandomSource: Sendable {
    /// A uniformly distributed value in `0..<1`.
    func nextDouble() -> Double
    /// A new random UUID.
    func uuid() -> UUID
}

/// The system random generator.
public struct SystemRandomSource: RandomSource {
    /// Creates the source.
    public init() {}
    /// A uniformly distributed value in `0..<1`.
    public func nextDouble() -> Double { Double.random(in: 0..<1) }
    /// `UUID()`.
    public func uuid() -> UUID { UUID() }
}

extension Duration {
    /// The duration in seconds as a Double.
    package var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }

    /// A duration from seconds (negative and non-finite values become zero).
    static func fromSeconds(_ s: Double) -> Duration {
        guard s.isFinite, s > 0 else { return .zero }
        return .nanoseconds(Int64((s * 1e9).rounded()))
    }
}
