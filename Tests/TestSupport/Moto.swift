import Foundation
import Synchronization

/// moto (a real S3 API server, Python) for the tests that read S3: the interpreter that has it,
/// the helper scripts under `Scripts/s3/`, and one server process on a free loopback port.
package enum Moto {
    /// `Scripts/s3/NAME` in this repository.
    package static func script(_ name: String) -> String { "\(packageRoot)/Scripts/s3/\(name)" }

    /// The interpreter that has moto's server and boto3 (Scripts/s3/python.sh finds it, or makes
    /// a virtual environment for it in .build/).
    package static func python() async throws -> String {
        let output = try await Subprocess.output("/bin/bash", [script("python.sh")])
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// One `moto_server.py` process, listening on a loopback port it chose itself (so no other
/// process can take the port between choosing and binding it). It exits when its parent does, so
/// a crashed test run leaves none behind.
package final class MotoProcess: Sendable {
    /// `http://127.0.0.1:PORT`.
    package let endpoint: String
    /// The port it listens on.
    package let port: Int
    private let process: Process
    private let exited: DispatchSemaphore

    private init(port: Int, process: Process, exited: DispatchSemaphore) {
        self.port = port
        endpoint = "http://127.0.0.1:\(port)"
        self.process = process
        self.exited = exited
    }

    /// Starts a server with `python` and returns once it listens (it prints its port then).
    /// Throws when it exits first, or has not listened within 60 seconds.
    package static func start(python: String) async throws -> MotoProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Moto.script("moto_server.py"), "-H", "127.0.0.1", "-p", "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        // Process.waitUntilExit spins on Linux from a task's thread: the handler signals instead.
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // A server that has not listened within the minute is stopped, which ends its output.
        let listened = Mutex(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(60)) {
            if !listened.withLock({ $0 }) { process.terminate() }
        }
        let port = await withCheckedContinuation { (found: CheckedContinuation<Int?, Never>) in
            // The first line is the port; the rest of its output is read and dropped, so the
            // server never blocks on a full pipe.
            Thread {
                let reader = output.fileHandleForReading
                var line: [UInt8] = []
                var resumed = false
                while let byte = try? reader.read(upToCount: 1), let b = byte.first {
                    guard !resumed else { continue }
                    if b == UInt8(ascii: "\n") {
                        resumed = true
                        found.resume(returning: Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)))
                    } else {
                        line.append(b)
                    }
                }
                if !resumed { found.resume(returning: nil) }
            }.start()
        }
        guard let port, port > 0 else {
            process.terminate()
            throw Subprocess.Failure(description: "moto_server.py exited, or did not listen within 60 s, without printing its port")
        }
        listened.withLock { $0 = true }
        return MotoProcess(port: port, process: process, exited: exited)
    }

    /// Stops the server and waits (up to 10 s) until it has exited.
    package func stop() {
        process.terminate()
        _ = exited.wait(timeout: .now() + .seconds(10))
    }
}

/// Loopback ports for test servers.
package enum LoopbackPort {
    /// A loopback port nothing listens on now (bound to 0 and released).
    package static func free() throws -> Int {
        let (port, fd) = try reserve()
        close(fd)
        return port
    }

    /// A loopback port held by a socket that is bound and does not listen, and that socket:
    /// connecting to it is refused, and no other process can take the port until the socket is
    /// closed (a released port can be, by a server another test starts meanwhile).
    package static func reserve() throws -> (port: Int, fd: Int32) {
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
