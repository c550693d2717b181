import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The write end of the self-pipe the signal handler writes to.
/// Safe without a lock: it is set once in `SignalWaiter.install` before any handler is
/// installed, and only read afterwards (from the async-signal-safe handler).
nonisolated(unsafe) private var signalWriteFD: Int32 = -1

/// Waits for SIGINT or SIGTERM with a plain `sigaction` handler and a self-pipe,
/// so the handler is in place before the server starts and stays in place until exit.
enum SignalWaiter {
    /// Installs the handlers; returns the read end of the pipe.
    static func install(_ signals: [Int32] = [SIGINT, SIGTERM]) -> Int32 {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return -1 }
        signalWriteFD = fds[1]
        for sig in signals {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalWriteFD, &byte, 1)
            }
            #else
            action.__sigaction_u.__sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(signalWriteFD, &byte, 1)
            }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(sig, &action, nil)
        }
        return fds[0]
    }

    /// Suspends until a signal has been written to `fd`; returns its number.
    static func wait(_ fd: Int32) async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            Thread.detachNewThread {
                var byte: UInt8 = 0
                while read(fd, &byte, 1) < 0, errno == EINTR {}
                continuation.resume(returning: Int32(byte))
            }
        }
    }
}
