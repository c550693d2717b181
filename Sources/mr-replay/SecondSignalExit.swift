import Foundation
import ReplayKit
import ServiceLifecycle
import UnixSignals

/// `mr-replay`'s rule for a second SIGINT or SIGTERM: exit 75 at once.
///
/// The first signal is the graceful shutdown of the command's `ServiceGroup` (SIGINT and SIGTERM
/// are its graceful-shutdown signals): the run stops reading, gives in-flight batches up to
/// `stopGrace` to settle, writes its checkpoint and report, and exits as the report says (75,
/// interrupted). This service says so on stderr, and at a second signal exits the process with
/// 75 without waiting for the run: the checkpoint on disk stays consistent, because it is only
/// ever replaced atomically. It is the group's first service, so the group's shutdown reaches it
/// last, once the run and the embedded collector have ended.
///
/// Why this service traps the two signals again, beside the group: swift-service-lifecycle
/// (2.13) cannot say "a second signal exits 75".
/// - While the group shuts down gracefully it ignores its graceful-shutdown signals; only a
///   `cancellationSignals` signal moves it on.
/// - A signal cannot be both: `ServiceGroup.init` requires the two lists to be disjoint. So
///   SIGINT cannot mean "shut down gracefully" the first time and "cancel" the second.
/// - Cancelling is not exiting either. A cancelled group still waits for every service to
///   return, and a request blocked in the kernel, or a `stopGrace` of minutes, keeps it waiting.
///   At 3 a.m. the operator who signals twice wants the process gone now.
struct SecondSignalExit: Service {
    /// The exit status of a second signal: interrupted, and a re-run resumes.
    static let exitCode = ExitStatus.interrupted

    /// Counts SIGINT and SIGTERM until its graceful shutdown or cancellation; exits at the second.
    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        var received = 0
        for await _ in signals.cancelOnGracefulShutdown() {
            received += 1
            if received == 1 {
                FileHandle.standardError.write(
                    Data("\nmr-replay: stopping: settling in-flight batches (signal again to exit now)\n".utf8))
            } else {
                FileHandle.standardError.write(Data("mr-replay: second signal, exiting now\n".utf8))
                exit(Self.exitCode)
            }
        }
    }
}
