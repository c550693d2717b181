import Foundation
import Synchronization

/// A started program (`mr-replay`, `mr-collector`) whose end is awaited through its termination
/// handler, never with `Process.waitUntilExit()`: on Linux that spins a run loop on the calling
/// thread, in a test a thread of the concurrency pool that other suites need.
final class ChildProcess: Sendable {
    /// How the process ended.
    struct Exit: Equatable, Sendable {
        /// The exit status, or the signal that ended it.
        let status: Int32
        /// Whether a signal ended it (then `status` is the signal).
        let signalled: Bool

        /// Whether `signal` ended it.
        func killed(by signal: Int32) -> Bool { signalled && status == signal }
    }

    private struct State {
        var exit: Exit?
        var waiters: [CheckedContinuation<Exit, Never>] = []
    }

    private let process: Process
    private let state = Mutex(State())
    /// What the process writes on its standard output, as it comes (with `stdout: true`).
    let output: AsyncStream<String>

    private init(process: Process, output: AsyncStream<String>) {
        self.process = process
        self.output = output
    }

    /// Starts `binary` with `arguments` in `directory`. Its standard output is read into
    /// ``output`` with `stdout`, else dropped; its standard error goes to `stderr` (a file,
    /// created) or is dropped.
    static func launch(
        _ binary: URL, _ arguments: [String], in directory: String, stdout: Bool = false, stderr: String? = nil
    ) throws -> ChildProcess {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        if let stderr {
            _ = FileManager.default.createFile(atPath: stderr, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderr))
        }
        let (output, sink) = AsyncStream.makeStream(of: String.self)
        if stdout {
            let pipe = Pipe()
            process.standardOutput = pipe
            pipe.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                if data.isEmpty {
                    handle.readabilityHandler = nil
                    sink.finish()
                } else {
                    sink.yield(String(decoding: data, as: UTF8.self))
                }
            }
        } else {
            sink.finish()
        }
        let child = ChildProcess(process: process, output: output)
        // Weak: the process keeps its handler, and a child nobody waits for any more has no waiters.
        process.terminationHandler = { [weak child] ended in
            guard let child else { return }
            let exit = Exit(status: ended.terminationStatus, signalled: ended.terminationReason == .uncaughtSignal)
            let waiters = child.state.withLock { s in
                s.exit = exit
                defer { s.waiters = [] }
                return s.waiters
            }
            for waiter in waiters { waiter.resume(returning: exit) }
        }
        try process.run()
        return child
    }

    /// The process id.
    var pid: pid_t { process.processIdentifier }

    /// Whether the process has not ended yet.
    var isRunning: Bool { process.isRunning && state.withLock { $0.exit == nil } }

    /// Sends `signal`, unless the process has ended (its id may then belong to another).
    func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits for the process to end.
    func exit() async -> Exit {
        await withCheckedContinuation { continuation in
            let exit = state.withLock { s -> Exit? in
                if s.exit == nil { s.waiters.append(continuation) }
                return s.exit
            }
            if let exit { continuation.resume(returning: exit) }
        }
    }

    /// The first line the process writes on its standard output (without the newline), or what
    /// it wrote when it closed its output first.
    func firstLine() async -> String {
        var text = ""
        for await chunk in output {
            text += chunk
            if let newline = text.firstIndex(of: "\n") { return String(text[..<newline]) }
        }
        return text
    }
}
