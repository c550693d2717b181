import Foundation

/// Runs helper scripts (Python under `Scripts/s3/`) for the tests.
enum Subprocess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The repository's root (this file is Tests/ObjectStorageTests/Support/Subprocess.swift).
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `Scripts/s3/NAME` in this repository.
    static func script(_ name: String) -> String { "\(repositoryRoot)/Scripts/s3/\(name)" }

    /// Runs `executable` with `arguments`, feeding `input` on stdin; returns stdout, or throws
    /// with stderr when it exits non-zero. Waits on a background thread, not the caller's.
    static func run(_ executable: String, _ arguments: [String], input: Data = Data()) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(executable, arguments, input: input) })
            }
        }
    }

    private static func runBlocking(_ executable: String, _ arguments: [String], input: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let errors = ErrorCollector(stderr.fileHandleForReading)
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus): \(errors.text())")
        }
        return output
    }

    /// The interpreter that has moto's server and boto3 (Scripts/s3/python.sh finds or makes it).
    static func python() async throws -> String {
        let output = try await run("/bin/bash", [script("python.sh")])
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Reads a pipe to its end on its own thread (so a chatty child never blocks on a full pipe).
private final class ErrorCollector: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let box = DataBox()

    init(_ handle: FileHandle) {
        let (done, box) = (done, box)
        DispatchQueue.global().async {
            box.set(handle.readDataToEndOfFile())
            done.signal()
        }
    }

    func text() -> String {
        done.wait()
        return String(decoding: box.get(), as: UTF8.self)
    }
}

/// A value shared between two threads behind a lock.
final class DataBox: @unchecked Sendable {
    // @unchecked Sendable is safe: `data` is only read and written while `lock` is held.
    private let lock = NSLock()
    private var data = Data()

    func set(_ value: Data) { lock.withLock { data = value } }
    func get() -> Data { lock.withLock { data } }
}
