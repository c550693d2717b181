import Foundation
import MetaRouterDelivery
import Synchronization
import SystemIO

/// Another run holds the state directory, and this one did not wait (`--no-wait`), or was
/// stopped while it waited. The CLI exits 75: nothing was read or sent, and a later run goes on.
public struct StateDirectoryBusy: Error, CustomStringConvertible, Sendable {
    /// Who holds the directory, and what this run did about it.
    public let description: String
}

/// One run at a time per state directory: an exclusive `flock(2)` on `<state_dir>/run.lock`,
/// held for the whole run and released by the kernel when the process ends, however it ends
/// (so a `kill -9` leaves no stale lock). The holder writes its pid, host and start time into
/// the file, so a second run can say at once who it is waiting for.
///
/// The shards of a sharded run have state directories of their own, so they do not wait for
/// each other.
public final class StateDirectoryLock: Sendable {
    /// The lock file's descriptor; closing it releases the lock.
    private let descriptor: Int32
    /// The lock file.
    public let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// Takes the lock of `directory` (creating the directory). When another run holds it,
    /// `announce` hears who at once; then this waits until that run ends, or throws
    /// ``StateDirectoryBusy`` right away when `wait` is false, or when `stop` is raised first.
    public static func acquire(
        directory: String, wait: Bool, stop: StopSignal, startedAt: Date = Date(), announce: @Sendable (String) -> Void
    ) async throws -> StateDirectoryLock {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/run.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StateDirectoryBusy(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let holder = "another mr-replay run (\(Self.holder(fd))) holds the state directory \(directory)"
            guard wait else {
                close(fd)
                throw StateDirectoryBusy(description: "\(holder); exiting (--no-wait): run again once it has ended")
            }
            announce("\(holder); waiting for it to end (--no-wait exits 75 instead)")
            guard try await Self.waitForLock(fd, stop: stop) else {
                throw StateDirectoryBusy(description: "\(holder); stopped by a signal while waiting for it")
            }
        }
        Self.writeHolder(fd, startedAt: startedAt)
        return StateDirectoryLock(descriptor: fd, path: path)
    }

    /// What the holder wrote into the lock file: `pid N on HOST, started T`.
    private static func holder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 512)
        // `buffer` holds 512 bytes, and pread writes at most that many into it.
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, $0.count, 0) }
        let text = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
        return text.isEmpty ? "its pid and start time are not recorded yet" : text
    }

    /// Records this process as the holder. Best effort: the text only tells a waiting run who
    /// it waits for, and the lock holds without it.
    private static func writeHolder(_ fd: Int32, startedAt: Date) {
        let started = ISO8601DateFormatter().string(from: startedAt)
        let text = Array("pid \(getpid()) on \(ProcessInfo.processInfo.hostName), started \(started)\n".utf8)
        guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { return }
        try? writeAll(text, to: fd)
    }

    /// Blocks a thread of its own in `flock(fd, LOCK_EX)` until the holder ends; true once the
    /// lock is held. A stop resumes the wait at once with false; the thread, when it later gets
    /// the lock, closes `fd`, which releases it. Either way `fd` is owned by this call.
    private static func waitForLock(_ fd: Int32, stop: StopSignal) async throws -> Bool {
        let wait = LockWait()
        let stopWatch = Task {
            if await stop.requested() { wait.finish(false) }
        }
        defer { stopWatch.cancel() }
        return await withCheckedContinuation { continuation in
            wait.install(continuation)
            let thread = Thread {
                while flock(fd, LOCK_EX) != 0, errno == EINTR {}
                if !wait.finish(true) { close(fd) }
            }
            thread.start()
        }
    }
}

/// One wait for the lock: resumed once, by whichever comes first, the lock or a stop.
private final class LockWait: Sendable {
    private let state = Mutex<(result: Bool?, continuation: CheckedContinuation<Bool, Never>?)>((nil, nil))

    /// Hands over the waiting continuation (resumed at once when the wait already ended).
    func install(_ continuation: CheckedContinuation<Bool, Never>) {
        let ended = state.withLock { s -> Bool? in
            if let result = s.result { return result }
            s.continuation = continuation
            return nil
        }
        if let ended { continuation.resume(returning: ended) }
    }

    /// Ends the wait with `result`; false when it had already ended.
    @discardableResult
    func finish(_ result: Bool) -> Bool {
        let (first, continuation) = state.withLock { s -> (Bool, CheckedContinuation<Bool, Never>?) in
            guard s.result == nil else { return (false, nil) }
            s.result = result
            defer { s.continuation = nil }
            return (true, s.continuation)
        }
        continuation?.resume(returning: result)
        return first
    }
}
