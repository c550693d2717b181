import Foundation
import ReplayKit
import UnixSignals

/// SIGINT and SIGTERM during a run, through swift-service-lifecycle's `UnixSignalsSequence` (the
/// same signal handling `mr-collector`'s service group uses): the first asks the run to stop
/// cleanly (stop reading, settle in-flight batches, write the checkpoint and the report); a
/// second exits at once with code 75. The checkpoint on disk is always consistent, because it is
/// only ever replaced atomically.
enum StopSignals {
    /// Runs `body` with a stop signal that SIGINT and SIGTERM raise, and returns its result.
    static func run<T: Sendable>(_ body: @escaping @Sendable (StopSignal) async throws -> T) async throws -> T {
        let stop = StopSignal()
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body(stop) }
            group.addTask {
                for await _ in signals {
                    if stop.request() > 1 {
                        FileHandle.standardError.write(Data("mr-replay: second signal, exiting now\n".utf8))
                        exit(75)
                    }
                    FileHandle.standardError.write(
                        Data("\nmr-replay: stopping: settling in-flight batches (signal again to exit now)\n".utf8))
                }
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            preconditionFailure("the run's task ended without a result")
        }
    }
}
