import NIOCore
import ObjectStorage
import TestSupport
import Testing

/// The object store's HTTP client against a bare local server: keep-alive, request framing,
/// backpressure, and what abandoning or cancelling an answer does to its connection.
@Suite struct ObjectHTTPClientTests {
    /// Requests one after another share one connection; the client frames bodies with
    /// `Content-Length` (`0` for a POST or PUT without one) and sends the caller's `Host`.
    @Test func sequentialRequestsShareOneKeptAliveConnection() async throws {
        let server = try await LocalHTTPServer.start { $0.head.hasPrefix("HEAD ") ? .headOnly(length: 1000) : .body(bytes: 1000) }
        let client = makeTestClient()
        for method in ["GET", "HEAD", "POST", "PUT", "DELETE", "GET"] {
            let body = method == "PUT" ? ByteBuffer(string: "hello") : nil
            let response = try await client.execute(testRequest(server, method: method, body: body), timeout: .seconds(60))
            #expect(response.status == 200)
            #expect(response.headers.first(name: "content-LENGTH") == "1000")
            let bytes = try await response.body.collect(upTo: 1 << 20)
            #expect(bytes.readableBytes == (method == "HEAD" ? 0 : 1000))
            #expect(holdsBodyBytes(bytes, from: 0))
        }
        let seen = server.seen
        #expect(seen.connections == 1)
        #expect(seen.requests.map { $0.header("Content-Length") } == [nil, nil, "0", "5", nil, nil])
        #expect(seen.requests.map { $0.header("Transfer-Encoding") } == Array(repeating: nil, count: 6))
        #expect(seen.requests[3].body == Array("hello".utf8))
        #expect(seen.requests.allSatisfy { $0.header("Host") == "127.0.0.1:\(server.port)" })
        await client.shutdown()
        await server.stop()
    }

    /// A chunked answer is read to its end, and its connection kept.
    @Test func aChunkedAnswerIsReadAndItsConnectionKept() async throws {
        let answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
        let server = try await LocalHTTPServer.start { _ in .raw(answer) }
        let client = makeTestClient()
        for _ in 0..<2 {
            let response = try await client.execute(testRequest(server), timeout: .seconds(60))
            #expect(String(buffer: try await response.body.collect(upTo: 1000)) == "hello world")
        }
        #expect(server.seen.connections == 1)
        await client.shutdown()
        await server.stop()
    }

    /// A body much larger than the socket buffers: while the consumer waits, the server can send
    /// only what the kernel's buffers hold (a read is issued only when the consumer asks), and
    /// every byte then arrives in order, in chunks of at most one read.
    @Test func aLargeBodyIsReadOnlyAsFastAsItIsConsumed() async throws {
        let total = 64 << 20
        let server = try await LocalHTTPServer.start { _ in .body(bytes: total) }
        let client = makeTestClient()
        let response = try await client.execute(testRequest(server), timeout: .seconds(60))
        var chunks = response.body.makeAsyncIterator()
        let first = try #require(try await chunks.next())
        #expect(try await server.waitUntil { $0.heldBack > 0 }, "the server was never held back by the unread body")
        let sentWhileWaiting = server.seen.bodyBytesSent
        #expect(sentWhileWaiting < total / 2, "the server sent \(sentWhileWaiting) bytes while the consumer did not read")
        var received = first.readableBytes
        var largest = received
        var inOrder = holdsBodyBytes(first, from: 0)
        while let chunk = try await chunks.next() {
            inOrder = inOrder && chunk.getInteger(at: chunk.readerIndex) == LocalHTTPServer.byte(at: received)
            received += chunk.readableBytes
            largest = max(largest, chunk.readableBytes)
        }
        #expect(received == total && inOrder)
        #expect(largest <= 1 << 20)
        #expect(server.seen.connections == 1)
        await client.shutdown()
        await server.stop()
    }

    /// A body left before its end closes its connection (the rest of it would otherwise be taken
    /// for the next answer); the next request opens another.
    @Test func aBodyLeftBeforeItsEndClosesItsConnection() async throws {
        let server = try await LocalHTTPServer.start { _ in .body(bytes: 8 << 20) }
        let client = makeTestClient()
        do {
            let response = try await client.execute(testRequest(server), timeout: .seconds(60))
            for try await chunk in response.body {
                #expect(holdsBodyBytes(chunk, from: 0))
                break
            }
        }
        #expect(try await server.waitUntil { $0.closedConnections == 1 })
        do {
            // A body never iterated, dropped with its response.
            _ = try await client.execute(testRequest(server), timeout: .seconds(60))
        }
        #expect(try await server.waitUntil { $0.closedConnections == 2 })
        #expect(server.seen.connections == 2)
        await client.shutdown()
        await server.stop()
    }

    /// A body larger than `collect(upTo:)` allows fails, and its connection (the rest of the body
    /// still on its way) is closed.
    @Test func collectingTooLargeABodyFails() async throws {
        let server = try await LocalHTTPServer.start { _ in .body(bytes: 8 << 20) }
        let client = makeTestClient()
        let response = try await client.execute(testRequest(server), timeout: .seconds(60))
        await #expect {
            _ = try await response.body.collect(upTo: 100_000)
        } throws: {
            isHTTPError($0, .bodyTooLarge, saying: "larger than 100000 bytes")
        }
        #expect(try await server.waitUntil { $0.closedConnections == 1 })
        await client.shutdown()
        await server.stop()
    }

    /// Cancelling a task that waits for a chunk (the server stalled) ends it at once with
    /// `CancellationError`, and closes the connection.
    @Test func cancellingATaskWaitingForAChunkEndsIt() async throws {
        let server = try await LocalHTTPServer.start { _ in .body(headers: ["Content-Length: 1000000"], bytes: 1000, after: .stall) }
        let client = makeTestClient()
        let response = try await client.execute(testRequest(server), timeout: .seconds(60))
        let readAll = Latch()
        let reader = Task {
            var count = 0
            for try await chunk in response.body {
                count += chunk.readableBytes
                if count == 1000 { readAll.open() }  // all the server sends: the next wait is for a chunk that never comes
            }
            return count
        }
        await readAll.wait()
        let cancelled = ContinuousClock.now
        reader.cancel()
        await #expect(throws: CancellationError.self) { _ = try await reader.value }
        #expect(ContinuousClock.now - cancelled < .seconds(20), "it ran toward its 60 s timeout instead of ending at the cancel")
        #expect(try await server.waitUntil { $0.closedConnections == 1 })
        await client.shutdown()
        await server.stop()
    }

    /// Cancelling a task that waits for the head ends it at once with `CancellationError`, and
    /// closes the connection.
    @Test func cancellingATaskWaitingForTheHeadEndsIt() async throws {
        let server = try await LocalHTTPServer.start { _ in .silence }
        let client = makeTestClient()
        let request = Task { try await client.execute(testRequest(server), timeout: .seconds(60)) }
        #expect(try await server.waitUntil { $0.requests.count == 1 })
        let cancelled = ContinuousClock.now
        request.cancel()
        await #expect(throws: CancellationError.self) { _ = try await request.value }
        #expect(ContinuousClock.now - cancelled < .seconds(20), "it ran toward its 60 s timeout instead of ending at the cancel")
        #expect(try await server.waitUntil { $0.closedConnections == 1 })
        await client.shutdown()
        await server.stop()
    }
}
