import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Waits for a condition on files that another process (or the run under test) writes, woken
/// by the kernel, never by a timer: inotify reports every change in the watched directory trees
/// (directories created in them later are watched as they appear), and a pidfd reports the end
/// of the process the wait follows. Linux only, like the rest of the test setup.
///
/// A wait runs on a thread of its own, not on the concurrency pool: a pool saturated by other
/// tests' blocking calls cannot make it late. The action that must land at the right moment (a
/// kill, a signal, a cancel) runs on that thread as soon as the condition holds.
///
/// Create the watch before the writer starts. The condition reads the files themselves, so a
/// change made before the wait began still counts. One wait at a time per watch.
final class FileWatch: Sendable {
    /// What ended a wait.
    enum Outcome: Equatable, Sendable {
        /// The condition held; the action ran.
        case held
        /// The followed process ended first.
        case processEnded
        /// The upper bound passed (a failure, not a way to wait).
        case timedOut
        /// The waiting task was cancelled.
        case cancelled
    }

    private let inotify: Int32
    /// A pipe (read end, write end) that wakes the waiting thread when the waiting task is
    /// cancelled: a byte written to `wakeupWrite` makes `wakeup` readable.
    private let wakeup: Int32
    private let wakeupWrite: Int32
    /// The watched directories, by watch descriptor.
    private let paths = Mutex<[Int32: String]>([:])
    private let busy = Atomic<Bool>(false)
    private static let mask = UInt32(IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_ATTRIB)

    /// Watches `directories` and every directory under them, now and later.
    init(_ directories: String...) throws {
        inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { throw FileWatchError(call: "inotify_init1", errno: errno) }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(inotify)
            throw FileWatchError(call: "pipe", errno: errno)
        }
        for end in ends {  // non-blocking, and not inherited by the processes a test starts
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        (wakeup, wakeupWrite) = (ends[0], ends[1])
        for directory in directories {
            guard watchTree(directory) else {
                // Every stored property is set, so `deinit` runs and closes the three
                // descriptors: closing them here as well would close numbers that another
                // thread may have been given meanwhile (a socket an event loop is registering).
                throw FileWatchError(call: "inotify_add_watch \(directory)", errno: errno)
            }
        }
    }

    deinit {
        close(inotify)
        close(wakeup)
        close(wakeupWrite)
    }

    /// Waits until `condition` holds, then runs `action` at once on the watching thread. The
    /// condition is checked when the wait begins and after every change in the watched trees.
    ///
    /// - Parameters:
    ///   - pid: the process whose end ends the wait (``Outcome/processEnded``, no action).
    ///   - limit: an upper bound; passing it is ``Outcome/timedOut``, which a test reports as a failure.
    func wait(
        whileRunning pid: pid_t? = nil, upTo limit: Duration = .seconds(120),
        until condition: @escaping @Sendable () -> Bool, then action: @escaping @Sendable () -> Void = {}
    ) async -> Outcome {
        precondition(!busy.exchange(true, ordering: .acquiringAndReleasing), "one wait at a time per FileWatch")
        defer { busy.store(false, ordering: .releasing) }
        let cancelled = CancelFlag()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let deadline = ContinuousClock.now + limit
                let thread = Thread {
                    continuation.resume(
                        returning: self.watch(pid: pid, deadline: deadline, cancelled: cancelled, condition, action))
                }
                thread.name = "FileWatch"
                thread.start()
            }
        } onCancel: {
            cancelled.raised.store(true, ordering: .releasing)
            var one: UInt8 = 1
            _ = write(wakeupWrite, &one, 1)
        }
    }

    /// The waiting thread's loop: check, then block in `poll` until the kernel reports a change,
    /// the process's end, a cancellation or the deadline.
    private func watch(
        pid: pid_t?, deadline: ContinuousClock.Instant, cancelled: CancelFlag,
        _ condition: () -> Bool, _ action: () -> Void
    ) -> Outcome {
        let exit: Int32 = pid.map { Self.pidfd($0) } ?? -1
        defer { if exit >= 0 { close(exit) } }
        if pid != nil, exit < 0 { return .processEnded }  // it had already ended (and was reaped)
        var fds = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeup, events: Int16(POLLIN), revents: 0),
            pollfd(fd: exit, events: Int16(POLLIN), revents: 0),  // a negative fd is ignored
        ]
        while true {
            drainChanges()
            if cancelled.raised.load(ordering: .acquiring) { return .cancelled }
            if exit >= 0, fds[2].revents != 0 { return .processEnded }
            if condition() {
                action()
                return .held
            }
            let left = deadline - ContinuousClock.now
            if left <= .zero { return .timedOut }
            let (seconds, attoseconds) = left.components
            let milliseconds = min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, Int64(Int32.max))
            for i in fds.indices { fds[i].revents = 0 }
            _ = poll(&fds, nfds_t(fds.count), Int32(milliseconds))
        }
    }

    /// Reads every pending inotify event (the change itself does not matter: the condition reads
    /// the files), and watches the directories created meanwhile.
    private func drainChanges() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress!, $0.count) }
            guard n > 0 else { break }
            var created: [String] = []
            buffer.withUnsafeBytes { raw in
                // `struct inotify_event`: wd (int32), mask, cookie, len (uint32), then `len` bytes
                // of NUL-padded name. Events are packed, so read each field unaligned.
                var offset = 0
                while offset + 16 <= n {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = raw[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
                    if mask & UInt32(IN_ISDIR) != 0, mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0,
                        let parent = paths.withLock({ $0[wd] })
                    {
                        created.append(parent + "/" + String(decoding: nameBytes, as: UTF8.self))
                    }
                    offset += 16 + length
                }
            }
            for directory in created { _ = watchTree(directory) }
        }
        var bytes = (UInt64(0), UInt64(0))
        _ = read(wakeup, &bytes, MemoryLayout.size(ofValue: bytes))
    }

    /// Watches `directory` and the directories under it; false when `directory` cannot be watched.
    private func watchTree(_ directory: String) -> Bool {
        let wd = inotify_add_watch(inotify, directory, Self.mask)
        guard wd >= 0 else { return false }
        paths.withLock { $0[wd] = directory }
        let children = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for child in children {
            var isDirectory: ObjCBool = false
            let path = directory + "/" + child
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                _ = watchTree(path)
            }
        }
        return true
    }

    /// A pidfd for `pid` (readable once the process ends), or -1 when it already ended and was
    /// reaped. Through `dlsym`: glibc (2.36 on Debian 12) has `pidfd_open`, but the Swift module
    /// does not export it, and `syscall` is variadic.
    private static func pidfd(_ pid: pid_t) -> Int32 {
        typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pidfd_open") else {
            preconditionFailure("pidfd_open is missing: glibc 2.36 or later is needed")
        }
        let fd = unsafeBitCast(symbol, to: PidfdOpen.self)(pid, 0)
        precondition(fd >= 0 || errno == ESRCH, "pidfd_open(\(pid)) failed: \(String(cString: strerror(errno)))")
        return fd
    }
}

/// Set when the waiting task is cancelled; read by the waiting thread.
private final class CancelFlag: Sendable {
    let raised = Atomic<Bool>(false)
}

/// A system call of ``FileWatch`` failed.
struct FileWatchError: Error, CustomStringConvertible {
    let call: String
    let errno: Int32
    var description: String { "\(call) failed: \(String(cString: strerror(errno)))" }
}
