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
