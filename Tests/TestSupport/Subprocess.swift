import Foundation
import Synchronization

/// What a finished program left: its exit status and everything it wrote.
package struct ProcessResult: Sendable {
    /// The exit status (or the signal that ended it).
    package var code: Int32
    /// Its standard output.
    package var out: String
    /// Its standard error.
    package var err: String
}

/// The one way the package's tests run a program to its end and collect what it wrote.
package enum Subprocess {
    /// Runs `executable` with `arguments` in `directory`, with `environment` as its whole
    /// environment and `input` on its standard input (none when nil), and blocks the calling
    /// thread until it ends. Standard output and standard error are read at the same time, so a
    /// program that fills one pipe while the other is being read cannot stall.
    package static func run(
        _ executable: URL, _ arguments: [String], directory: String, environment: [String: String] = [:],
        input: Data? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = environment
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        let errData = Mutex(Data())
        let errRead = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errData.withLock { $0 = data }
            errRead.signal()
        }
        if let input {
            stdin.fileHandleForWriting.write(input)
            try stdin.fileHandleForWriting.close()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errRead.wait()
        process.waitUntilExit()
        return ProcessResult(
            code: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
            err: String(decoding: errData.withLock { $0 }, as: UTF8.self))
    }

    /// ``run(_:_:directory:environment:input:)`` on a thread of its own, for async tests: the
    /// concurrency pool's threads stay free for what the program talks to (an in-process
    /// collector, say) while it runs.
    package static func runOnThread(
        _ executable: URL, _ arguments: [String], directory: String, environment: [String: String] = [:],
        input: Data? = nil
    ) async throws -> ProcessResult {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        try run(executable, arguments, directory: directory, environment: environment, input: input)
                    })
            }
        }
    }

    /// A program that ended with a status other than 0, and what it wrote on standard error.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String

        package init(description: String) { self.description = description }
    }

    /// Runs `executable` with `arguments` and the test process's environment, `input` on its
    /// standard input, on a thread of its own; returns its standard output.
    /// - Throws: ``Failure`` naming the program, its status and the end of its standard error,
    ///   when it does not exit 0.
    @discardableResult
    package static func output(_ executable: String, _ arguments: [String], input: Data = Data()) async throws -> Data {
        let result = try await runOnThread(
            URL(fileURLWithPath: executable), arguments, directory: FileManager.default.currentDirectoryPath,
            environment: ProcessInfo.processInfo.environment, input: input)
        guard result.code == 0 else {
            let name = arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? executable
            throw Failure(description: "\(name) exited with \(result.code): \(result.err.suffix(2000))")
        }
        return Data(result.out.utf8)
    }
}
