import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny CONNECT-only HTTP proxy for tests, on blocking loopback sockets: it answers
/// `CONNECT 127.0.0.1:PORT` (or `localhost:PORT`) with 200 and relays bytes both ways, one
/// thread per direction, and records every CONNECT target. Anything else gets 405.
final class TLSTestProxy: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The port it listens on (127.0.0.1).
    let port: Int
    private let listener: Int32
    private let seen = Mutex<[String]>([])

    /// Listens on a free loopback port and starts accepting on a thread of its own.
    init() throws {
        let fd = Self.makeSocket()
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw Failure(description: "cannot listen")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// The `host:port` of every CONNECT request so far.
    var connectTargets: [String] { seen.withLock { $0 } }

    /// Stops accepting (relayed connections end when their peers close). The accept thread
    /// closes the listener once its `accept` fails: closing it here could let the number be
    /// reused (by another test's socket) before that thread calls `accept` on it again.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                // A signal or a peer that left before it was accepted is not the end: only a
                // failure after `stop()` (or a broken listener) closes the listener, once.
                if errno == EINTR || errno == ECONNABORTED { continue }
                close(listener)
                return
            }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    /// Reads the request head, connects to the target, answers 200, then relays.
    private func serve(_ client: Int32) {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard read(client, &byte, 1) == 1 else { close(client); return }
            head.append(byte)
        }
        let words = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first?.split(separator: " ") ?? []
        guard words.count == 3, words[0] == "CONNECT", let colon = words[1].lastIndex(of: ":"),
            let port = Int(words[1][words[1].index(after: colon)...])
        else {
            Self.send(client, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            close(client)
            return
        }
        seen.withLock { $0.append(String(words[1])) }
        let upstream = Self.makeSocket()
        var address = Self.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Self.send(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            close(client)
            close(upstream)
            return
        }
        Self.send(client, "HTTP/1.1 200 Connection established\r\n\r\n")
        let other = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Self.relay(from: client, to: upstream)
            other.signal()
        }
        Self.relay(from: upstream, to: client)
        other.wait()
        close(client)
        close(upstream)
    }

    /// Copies bytes until `source` ends, then closes both directions of both sockets.
    private static func relay(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            var sent = 0
            while sent < n {
                let w = buffer.withUnsafeBytes { write(destination, $0.baseAddress! + sent, n - sent) }
                if w <= 0 { break }
                sent += w
            }
        }
        shutdown(destination, Int32(SHUT_RDWR))
        shutdown(source, Int32(SHUT_RDWR))
    }

    private static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    private static func makeSocket() -> Int32 {
        #if canImport(Glibc)
            socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
