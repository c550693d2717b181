import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One plain TCP connection to 127.0.0.1 with blocking reads (60 s timeout), to see exactly
/// what happens on a single keep-alive connection: several requests, pipelining, `Connection: close`.
package final class RawConnection {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// One parsed HTTP response.
    package struct Response {
        package var status: Int
        /// Header names lowercased.
        package var headers: [String: String]
        package var body: String
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    package init(port: Int) throws {
        fd = try Self.connectedSocket(port: port)
    }

    /// A socket connected to 127.0.0.1:`port`. On failure it closes the socket and throws before
    /// `init` stores it, so `deinit` (which closes `fd`) never runs for it. Closing it in `init`
    /// and again in `deinit` (which runs when a fully initialized class's `init` throws) closed a
    /// descriptor number that another thread could have been given in between: a NIO socket of
    /// a collector under test, which then failed with EBADF and crashed the test process.
    private static func connectedSocket(port: Int) throws -> Int32 {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)  // a guard against a hang, not a speed check: a loaded CI machine can take seconds
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "connect failed")
        }
        // With nothing listening on `port`, the kernel may still give this socket `port` as its
        // own ephemeral port, and a loopback connect to itself then succeeds (TCP simultaneous
        // open). A port a test found closed is free for exactly that, so such a connection means
        // nothing listens, as a refused one does.
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        if named == 0, Int(UInt16(bigEndian: local.sin_port)) == port {
            close(fd)
            throw Failure(description: "connected to itself: nothing listens on port \(port)")
        }
        return fd
    }

    deinit { close(fd) }

    /// A complete request with a Content-Length body.
    package static func request(
        _ method: String = "POST", path: String = "/v1/batch", body: [UInt8] = [], headers: [String] = []
    ) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for h in headers { head += h + "\r\n" }
        if method == "POST" || !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    package func send(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            guard n > 0 else { throw Failure(description: "write failed") }
            done += n
        }
    }

    /// Reads more bytes; false at end of stream.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 { throw Failure(description: "read failed or timed out (errno \(errno))") }
        if n == 0 { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// The next response, or nil when the server closed the connection before sending one.
    package func readResponse() throws -> Response? {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while true {
            if buffer.count >= 4 {
                headEnd = (0...(buffer.count - 4)).first { Array(buffer[$0..<$0 + 4]) == separator }
            }
            if headEnd != nil { break }
            guard try fill() else {
                if buffer.isEmpty { return nil }
                throw Failure(description: "connection closed inside a response head")
            }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(head)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = headEnd! + 4
        while buffer.count < bodyStart + length {
            guard try fill() else { throw Failure(description: "connection closed inside a response body") }
        }
        let body = String(decoding: buffer[bodyStart..<(bodyStart + length)], as: UTF8.self)
        buffer.removeFirst(bodyStart + length)
        return Response(status: status, headers: headers, body: body)
    }

    /// True when the server has closed the connection (and sent nothing more).
    package func isClosedByServer() throws -> Bool {
        try buffer.isEmpty && !fill()
    }
}
