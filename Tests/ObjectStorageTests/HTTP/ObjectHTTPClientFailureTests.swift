import Foundation
import NIOCore
import ObjectStorage
import TestSupport
import Testing

/// How the object store's HTTP client fails: each failure a typed error saying what happened, and
/// how the S3 client classifies it.
@Suite struct ObjectHTTPClientFailureTests {
    /// No head within the request's timeout: a timeout, and the connection is closed.
    @Test func noHeadWithinTheTimeoutIsATimeout() async throws {
        let server = try await LocalHTTPServer.start { _ in .silence }
        let client = makeTestClient()
        let started = ContinuousClock.now
        await #expect {
            _ = try await client.execute(testRequest(server), timeout: .milliseconds(300))
        } throws: {
            isHTTPError($0, .timedOut, saying: "the answer did not start within 0.3 seconds")
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(20))
        #expect(try await server.waitUntil { $0.closedConnections == 1 })
        await client.shutdown()
        await server.stop()
    }

    /// The S3 client takes a request timeout for an idle timeout, retries it, and says so.
    @Test func theS3ClientRetriesATimeoutAsAnIdleTimeout() async throws {
        let server = try await LocalHTTPServer.start { _ in .silence }
        let client = makeTestClient()
        var settings = S3Settings(endpoint: "http://127.0.0.1:\(server.port)", idleTimeout: .milliseconds(200))
        settings.retry = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10))
        let s3 = S3Client(
            httpClient: client, settings: settings, region: "us-east-1", endpoint: try S3Endpoint(parsing: settings.endpoint ?? ""),
            credentials: StaticCredentialProvider(AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret"), source: "test"))
        await #expect {
            _ = try await s3.listObjects(bucket: "b", prefix: "")
        } throws: { error in
            guard let error = error as? S3Error else { return false }
            return error.kind == .retriesExhausted
                && error.message.contains("no bytes for the idle timeout (the answer did not start within 0.2 seconds)")
        }
        #expect(server.seen.connections == 2)
        await client.shutdown()
        await server.stop()
    }

    /// An answer cut short: the bytes that came are handed out, then a failure saying where.
    @Test func anAnswerCutShortFailsAfterItsBytes() async throws {
        let server = try await LocalHTTPServer.start { _ in .body(headers: ["Content-Length: 10000"], bytes: 4000, after: .close) }
        let client = makeTestClient()
        let response = try await client.execute(testRequest(server), timeout: .seconds(60))
        var received = 0
        await #expect {
            for try await chunk in response.body { received += chunk.readableBytes }
        } throws: {
            isHTTPError($0, .closed, saying: "the connection closed after 4000 bytes of the body")
        }
        #expect(received == 4000)
        await client.shutdown()
        await server.stop()
    }

    /// Bytes that are not HTTP are a malformed answer.
    @Test func bytesThatAreNotHTTPAreAMalformedAnswer() async throws {
        let server = try await LocalHTTPServer.start { _ in .raw("SSH-2.0-OpenSSH_9.2\r\n\r\n") }
        let client = makeTestClient()
        await #expect {
            _ = try await client.execute(testRequest(server), timeout: .seconds(60))
        } throws: {
            isHTTPError($0, .malformedAnswer, saying: "not HTTP/1.1")
        }
        await client.shutdown()
        await server.stop()
    }

    /// Nothing listens: a connect failure naming the address and the reason, at once.
    @Test func aRefusedConnectionIsAConnectFailure() async throws {
        let (port, reserved) = try LoopbackPort.reserve()
        defer { close(reserved) }
        let client = makeTestClient()
        let request = ObjectHTTPRequest(url: "http://127.0.0.1:\(port)/", headers: ObjectHTTPHeaders([(name: "Host", value: "x")]))
        await #expect {
            _ = try await client.execute(request, timeout: .seconds(60))
        } throws: {
            isHTTPError($0, .connectFailed, saying: "cannot connect to 127.0.0.1:\(port): Connection refused")
        }
        await client.shutdown()
    }

    /// URLs it cannot send.
    @Test(arguments: ["ftp://host/x", "http:///x", "https://host:99999/", "https://user@host/", "host/x"])
    func invalidURLs(_ url: String) async {
        await #expect {
            _ = try await makeTestClient().execute(ObjectHTTPRequest(url: url), timeout: .seconds(1))
        } throws: {
            isHTTPError($0, .invalidURL, saying: "cannot request \(url)")
        }
    }

    /// Shutting down closes the idle connections; later requests fail.
    @Test func shutdownClosesIdleConnectionsAndRefusesLaterRequests() async throws {
        let server = try await LocalHTTPServer.start { _ in .body(bytes: 10) }
        let client = makeTestClient()
        let response = try await client.execute(testRequest(server), timeout: .seconds(60))
        #expect(try await response.body.collect(upTo: 100).readableBytes == 10)
        await client.shutdown()
        #expect(try await server.waitUntil { $0.closedConnections == 1 })
        await #expect {
            _ = try await client.execute(testRequest(server), timeout: .seconds(60))
        } throws: {
            isHTTPError($0, .shutDown)
        }
        await server.stop()
    }

    /// A kept-alive connection the server closed while it was idle is not used: the request goes
    /// out on a new connection and succeeds.
    @Test func aConnectionClosedWhileIdleIsNotUsed() async throws {
        let server = try await LocalHTTPServer.start { _ in .body(bytes: 10, after: .close) }
        let client = makeTestClient()
        for _ in 0..<3 {
            let response = try await client.execute(testRequest(server), timeout: .seconds(60))
            #expect(try await response.body.collect(upTo: 100).readableBytes == 10)
        }
        #expect(server.seen.connections == 3)
        await client.shutdown()
        await server.stop()
    }
}
