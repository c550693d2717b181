import Foundation
import ReplayKit
import Testing

/// moto's S3 server on a free loopback port for the end-to-end S3 tests, started once for the
/// ``S3RunTests`` suites by ``S3MotoTrait``: `open` checks no signature (any keys read it);
/// `iam` checks signatures and IAM policies (Scripts/s3/moto_setup.py: `forbidden-bucket` is
/// denied to its user). Interpreter: Scripts/s3/python.sh (this machine's, or a virtual
/// environment it makes in .build/).
struct S3Moto: Sendable {
    /// The open server's endpoint, `http://127.0.0.1:PORT`.
    let endpoint: String
    /// The IAM-checking server's endpoint.
    let iamEndpoint: String
    /// The IAM user's keys on `iamEndpoint`.
    let iamKeyID: String
    let iamSecret: String
    let python: String
    private let processes: [MotoProcess]

    /// The fixture of the running suite.
    @TaskLocal static var current: S3Moto?

    /// The running suite's fixture.
    static var shared: S3Moto {
        get throws { try #require(current, "S3 tests must run inside @Suite(.s3Moto)") }
    }

    /// Any keys read the open server; these are what the tests give mr-replay.
    static let keyID = "AKIDREPLAYTEST"
    static let secret = "replay-test-secret-never-printed"

    static func start() async throws -> S3Moto {
        let python = try await Helper.python()
        let open = try MotoProcess(python: python)
        let iam = try MotoProcess(python: python)
        do {
            try await Helper.run(python, [Helper.script("moto_objects.py"), open.endpoint, "wait"])
            try await Helper.run(python, [Helper.script("moto_objects.py"), iam.endpoint, "wait"])
            let output = try await Helper.run(python, [Helper.script("moto_setup.py"), iam.endpoint, "iam"])
            let setup = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
            return S3Moto(
                endpoint: open.endpoint, iamEndpoint: iam.endpoint, iamKeyID: setup["access_key_id"] as? String ?? "",
                iamSecret: setup["secret_access_key"] as? String ?? "", python: python, processes: [open, iam])
        } catch {
            open.stop()
            iam.stop()
            throw error
        }
    }

    func stop() { processes.forEach { $0.stop() } }

    /// Uploads `objects` (key → local file) to `bucket` on the open server (made if needed);
    /// returns their ETags.
    @discardableResult
    func put(bucket: String, _ objects: [String: String]) async throws -> [String: String] {
        let spec = try JSONSerialization.data(withJSONObject: ["bucket": bucket, "objects": objects])
        let output = try await Helper.run(python, [Helper.script("moto_objects.py"), endpoint, "put"], input: spec)
        let answer = try JSONSerialization.jsonObject(with: output) as? [String: Any]
        return answer?["etags"] as? [String: String] ?? [:]
    }

    /// The environment mr-replay gets: the test keys, and a HOME without AWS files.
    func environment(home: String, keyID: String = S3Moto.keyID, secret: String = S3Moto.secret) -> [String: String] {
        ["AWS_ACCESS_KEY_ID": keyID, "AWS_SECRET_ACCESS_KEY": secret, "HOME": home, "PATH": "/usr/bin:/bin"]
    }

    /// The `inputs` section for `endpoint` (the open server's by default); `inputsExtra` holds
    /// more `inputs` members, indented by two spaces.
    func configSection(endpoint: String? = nil, inputsExtra: String = "", extra: String = "") -> String {
        """
        inputs:
        \(inputsExtra)
          s3:
            endpoint: \(endpoint ?? self.endpoint)
            region: us-east-1
            max_attempts: 3
            idle_timeout_seconds: 5
        \(extra)
        """
    }
}

/// One `moto_server.py` process (it exits when its parent does, so a crashed test run leaves
/// none behind).
final class MotoProcess: Sendable {
    let endpoint: String
    private let process: Process
    private let exited = DispatchSemaphore(value: 0)

    init(python: String) throws {
        let port = try freeLoopbackPort()
        endpoint = "http://127.0.0.1:\(port)"
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Helper.script("moto_server.py"), "-H", "127.0.0.1", "-p", String(port)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exited = self.exited
        // Process.waitUntilExit spins on Linux from a task's thread: the handler signals instead.
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
    }

    func stop() {
        process.terminate()
        _ = exited.wait(timeout: .now() + .seconds(10))
    }
}

/// A loopback port nothing listens on now (bound to 0 and released).
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Helper.Failure(description: "socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        // Safe: sockaddr_in is the IPv4 form of sockaddr; bind and getsockname read and write at
        // most `length` bytes, its size.
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw Helper.Failure(description: "bind() failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Runs the Python helpers under Scripts/s3/.
enum Helper {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The repository's root.
    static var repositoryRoot: String { packageRoot }

    static func script(_ name: String) -> String { "\(repositoryRoot)/Scripts/s3/\(name)" }

    /// The interpreter with moto and boto3.
    static func python() async throws -> String {
        let output = try await run("/bin/bash", [script("python.sh")])
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `executable`; returns its stdout, or throws with its stderr when it fails. Waits on a
    /// dispatch thread, not the caller's.
    @discardableResult
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
        let stdin = Pipe(), stdout = Pipe()
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("moto-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: errors)
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        exited.wait()
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "\(arguments.first ?? executable) exited with \(process.terminationStatus): \(text.suffix(2000))")
        }
        return output
    }
}

/// Starts moto around a suite and stops it after.
struct S3MotoTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let moto = try await S3Moto.start()
        defer { moto.stop() }
        try await S3Moto.$current.withValue(moto) { try await function() }
    }
}

extension Trait where Self == S3MotoTrait {
    /// Runs the suite against moto's S3 server on loopback.
    static var s3Moto: Self { S3MotoTrait() }
}
