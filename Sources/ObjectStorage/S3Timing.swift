import Foundation

/// Time and randomness, injected so tests drive retries, back-off and credential expiry without
/// waiting.
package struct S3Timing: Sendable {
    /// The wall-clock time (request signing, credential expiry).
    package var now: @Sendable () -> Date
    /// A value in `0..<1` for the back-off's jitter.
    package var random: @Sendable () -> Double
    /// Waits out a back-off in a task (listing, HEAD, opening a GET).
    package var sleep: @Sendable (Duration) async throws -> Void
    /// Waits out a back-off on the blocking reader's thread.
    package var blockingSleep: @Sendable (Duration) -> Void

    /// Timing from the given functions.
    package init(
        now: @escaping @Sendable () -> Date, random: @escaping @Sendable () -> Double,
        sleep: @escaping @Sendable (Duration) async throws -> Void,
        blockingSleep: @escaping @Sendable (Duration) -> Void
    ) {
        self.now = now
        self.random = random
        self.sleep = sleep
        self.blockingSleep = blockingSleep
    }

    /// The real clock, the system's random numbers and real sleeping.
    package static let live = S3Timing(
        now: { Date() },
        random: { Double.random(in: 0..<1) },
        sleep: { try await Task.sleep(for: $0) },
        blockingSleep: { duration in
            let (seconds, attoseconds) = duration.components
            guard seconds > 0 || attoseconds > 0 else { return }
            Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        })
}
