import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// One moto server (`python3 -m moto.server`) on a free loopback port, filled by
/// Scripts/s3/moto_setup.py.
final class MotoServer: Sendable {
    /// `open` (no signature checks) or `iam` (signatures and IAM policies enforced after setup).
    let mode: String
    let port: Int
    /// What moto_setup.py printed.
    let setup: MotoSetup
    private let process: Process
    private let exited: DispatchSemaphore

    private init(mode: String, port: Int, setup: MotoSetup, process: Process, exited: DispatchSemaphore) {
        self.mode = mode
        self.port = port
        self.setup = setup
        self.process = process
        self.exited = exited
    }

    /// `http://127.0.0.1:PORT`.
    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Starts a server with `python`, waits until it answers, then fills it.
    static func start(mode: String, python: String, httpClient: HTTPClient) async throws -> MotoServer {
        let port = try freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Subprocess.script("moto_server.py"), "-H", "127.0.0.1", "-p", String(port)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // Process.waitUntilExit spins on Linux when called from a task's thread: wait for the
        // termination handler instead.
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        do {
            try await waitUntilAnswering(port: port, httpClient: httpClient)
            let output = try await Subprocess.run(python, [Subprocess.script("moto_setup.py"), "http://127.0.0.1:\(port)", mode])
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let setup = try decoder.decode(MotoSetup.self, from: output)
            return MotoServer(mode: mode, port: port, setup: setup, process: process, exited: exited)
        } catch {
            process.terminate()
            throw error
        }
    }

    /// Stops the server.
    func stop() {
        process.terminate()
        _ = exited.wait(timeout: .now() + .seconds(10))
    }

    /// The size and SHA-256 (hex) moto_setup.py recorded for `key`.
    func object(_ key: String) -> MotoSetup.Object {
        setup.objects?[key] ?? MotoSetup.Object(size: -1, sha256: "")
    }

    private static func waitUntilAnswering(port: Int, httpClient: HTTPClient) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/moto-api/")
            if let response = try? await httpClient.execute(request, timeout: .seconds(2)) {
                _ = try? await response.body.collect(upTo: 1 << 20)
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Subprocess.Failure(description: "moto did not answer on port \(port) within 60 s")
    }

    /// A port nothing listens on now (bound to 0 and released).
    static func freePort() throws -> Int {
        let (port, fd) = try reservePort()
        close(fd)
        return port
    }

    /// A loopback port held by a socket that is bound and does not listen, and that socket:
    /// connecting to it is refused, and no other process can take the port until the socket is
    /// closed (a released port can be, by a server another test starts meanwhile).
    static func reservePort() throws -> (port: Int, fd: Int32) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Subprocess.Failure(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            // Safe: sockaddr_in is the IPv4 form of sockaddr; bind and getsockname read and write
            // at most `length` bytes, its size.
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw Subprocess.Failure(description: "bind() failed")
        }
        return (Int(UInt16(bigEndian: address.sin_port)), fd)
    }
}

/// What Scripts/s3/moto_setup.py prints.
struct MotoSetup: Decodable, Sendable {
    struct Object: Decodable, Sendable {
        var size: Int
        var sha256: String
    }

    /// open: the objects compared byte for byte.
    var objects: [String: Object]?
    /// open: every key of the listing bucket, sorted.
    var listingKeys: [String]?
    /// iam: the IAM user's access key.
    var accessKeyId: String?
    /// iam: the IAM user's secret.
    var secretAccessKey: String?
}
