import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny HTTP proxy for tests, on blocking loopback sockets, one thread per direction. It
/// answers `CONNECT 127.0.0.1:PORT` (or `localhost:PORT`) with 200 and relays bytes both ways;
/// it forwards a request naming a whole `http://127.0.0.1:PORT/...` URL to that port, with the
/// request line in origin form, and relays the rest of the connection. It records every CONNECT
/// target, every forwarded request line and every `Proxy-Authorization` value; with
/// `requiredAuthorization`, a request without exactly that value gets 407. Anything else gets 405.
public final class TestHTTPProxy: Sendable {
    /// The proxy could not listen.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The port it listens on (127.0.0.1).
    public let port: Int
    private let listener: Int32
    private let requiredAuthorization: String?
    private let seen = Mutex<[String]>([])
    private let forwarded = Mutex<[String]>([])
    private let authorizations = Mutex<[String]>([])

    /// Listens on a free loopback port and starts accepting on a thread of its own; with
    /// `requiredAuthorization` (a whole header value, such as `Basic dTpw`), only requests
    /// carrying it are served.
    public init(requiredAuthorization: String? = nil) throws {
        self.requiredAuthorization = requiredAuthorization
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
    public var connectTargets: [String] { seen.withLock { $0 } }

    /// The request line of every forwarded (plain HTTP) request so far, as received.
    public var forwardedRequests: [String] { forwarded.withLock { $0 } }

    /// Every `Proxy-Authorization` value received so far.
    public var proxyAuthorizations: [String] { authorizations.withLock { $0 } }

    /// Stops accepting (relayed connections end when their peers close). The accept thread
    /// closes the listener once its `accept` fails: closing it here could let the number be
    /// reused (by another test's socket) before that thread calls `accept` on it again.
    public func stop() {
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

    /// Reads the request head, connects to the target, answers 200 (CONNECT) or forwards the
    /// request, then relays.
    private func serve(_ client: Int32) {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard read(client, &byte, 1) == 1 else { close(client); return }
            head.append(byte)
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let words = lines.first?.split(separator: " ") ?? []
        let authorization = lines.first { $0.lowercased().hasPrefix("proxy-authorization:") }
            .map { String($0.dropFirst("proxy-authorization:".count)).trimmingCharacters(in: .whitespaces) }
        if let authorization { authorizations.withLock { $0.append(authorization) } }
        if let requiredAuthorization, authorization != requiredAuthorization {
            Self.send(client, "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            close(client)
            return
        }
        let target = words.count == 3 ? Self.target(method: words[0], words[1]) : nil
        guard let target, let upstream = Self.connect(port: target.port) else {
            let status = target == nil ? "405 Method Not Allowed" : "502 Bad Gateway"
            Self.send(client, "HTTP/1.1 \(status)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            close(client)
            return
        }
        if let path = target.path {
            forwarded.withLock { $0.append(lines[0]) }
            let rest = lines.dropFirst().filter { !$0.lowercased().hasPrefix("proxy-authorization:") }
            Self.send(upstream, "\(words[0]) \(path) \(words[2])\r\n" + rest.joined(separator: "\r\n"))
        } else {
            seen.withLock { $0.append(String(words[1])) }
            Self.send(client, "HTTP/1.1 200 Connection established\r\n\r\n")
        }
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

    /// The port a request names, and for a forwarded one (`http://host:port/path`) its path; nil
    /// for anything else.
    private static func target(method: Substring, _ word: Substring) -> (port: Int, path: String?)? {
        if method == "CONNECT" {
            guard let colon = word.lastIndex(of: ":"), let port = Int(word[word.index(after: colon)...]) else { return nil }
            return (port, nil)
        }
        guard word.hasPrefix("http://"), let url = URLComponents(string: String(word)), let port = url.port else { return nil }
        var path = url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath
        if let query = url.percentEncodedQuery { path += "?" + query }
        return (port, path)
    }

    /// A socket connected to `port` on 127.0.0.1, or nil.
    private static func connect(port: Int) -> Int32? {
        let upstream = makeSocket()
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                    Glibc.connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                    Darwin.connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        guard connected == 0 else {
            close(upstream)
            return nil
        }
        return upstream
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
