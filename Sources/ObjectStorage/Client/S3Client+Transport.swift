import Foundation
import NIOCore

extension S3Client {
    /// The largest error or listing document read into memory.
    static let maxDocumentBytes = 32 << 20

    /// Runs `attempt` until it succeeds, a failure a retry cannot fix happens, or the retry policy
    /// gives up; sleeps each back-off through ``S3Timing/sleep``.
    func withRetries<T>(_ report: FailureReport, _ attempt: () async throws -> T) async throws -> T {
        var state = RetryState(policy: settings.retry)
        var attempts = 0
        while true {
            try Task.checkCancellation()
            attempts += 1
            do {
                return try await attempt()
            } catch let failure as AttemptFailure {
                switch state.next(after: failure.failure, random: timing.random()) {
                case .retry(let delay):
                    logger.info(
                        "\(report.action): \(failure.summary); retrying in \(delay) (attempt \(attempts + 1) of \(settings.retry.maxAttempts))")
                    try await timing.sleep(delay)
                case .fail(let kind):
                    throw report.error(kind, last: failure, attempts: attempts)
                }
            }
        }
    }

    /// Signs and sends `request`; returns a 2xx answer, whose body the caller reads. Throws
    /// ``AttemptFailure`` for an error answer (its body read and parsed) or a transport failure,
    /// ``S3Error`` when credentials cannot be had, and `CancellationError`.
    func send(_ request: S3Request, body: [UInt8]? = nil) async throws -> ObjectHTTPResponse {
        let credentials = try await currentCredentials()
        var signed = request
        signed.sign(with: credentials, region: region, at: timing.now())
        var headers = ObjectHTTPHeaders([(name: "Host", value: signed.host)])
        for header in signed.headers { headers.add(name: header.name, value: header.value) }
        let outgoing = ObjectHTTPRequest(method: signed.method, url: signed.url, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
        let response: ObjectHTTPResponse
        do {
            response = try await httpClient.execute(outgoing, timeout: settings.idleTimeout)
        } catch {
            guard let failure = AttemptFailure.transport(error) else { throw CancellationError() }
            throw failure
        }
        guard (200..<300).contains(response.status) else {
            let data = (try? await collect(response.body, within: settings.idleTimeout)) ?? Data()
            var body = S3ErrorBody(parsing: data)
            body.message = body.message.map { Self.redacting($0, credentials) }
            body.region = body.region ?? response.headers.first(name: "x-amz-bucket-region")
            throw AttemptFailure(status: response.status, body: body)
        }
        return response
    }

    /// Sends `request` and reads its whole body (a listing), within the idle timeout.
    func fetchWhole(_ request: S3Request) async throws -> Data {
        let response = try await send(request)
        do {
            return try await collect(response.body, within: settings.idleTimeout)
        } catch let error as AttemptFailure {
            throw error
        } catch {
            guard let failure = AttemptFailure.transport(error) else { throw CancellationError() }
            throw failure
        }
    }

    /// One GetObject attempt: opens the object at `offset` and checks the answer matches it.
    func openObject(bucket: String, key: String, from offset: UInt64, ifMatch etag: String?) async throws -> ObjectStream {
        let response = try await send(builder.getObject(bucket: bucket, key: key, from: offset, ifMatch: etag))
        let head = ObjectHead(response: response, offset: offset)
        if offset > 0 {
            guard response.status == 206, head.rangeStart == offset else {
                throw AttemptFailure(
                    .clientError(status: response.status, code: nil),
                    detail: "asked for bytes from \(offset), the answer starts at \(head.rangeStart.map(String.init) ?? "0")")
            }
        }
        return ObjectStream(head: head, body: response.body)
    }

    /// The provider's credentials; a failure to get them is final (``S3Error/Kind/credentials``).
    func currentCredentials() async throws -> AWSCredentials {
        do {
            return try await credentials.credentials()
        } catch let error as S3Error {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw S3Error(.credentials, "cannot get credentials from \(credentials.source): \(error)")
        }
    }

    /// Reads a whole body of at most ``maxDocumentBytes``, failing with an idle timeout after `limit`.
    func collect(_ body: ObjectHTTPResponse.Body, within limit: Duration) async throws -> Data {
        try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask {
                var data = Data()
                for try await chunk in body {
                    guard data.count + chunk.readableBytes <= Self.maxDocumentBytes else {
                        throw AttemptFailure(.clientError(status: 200, code: nil), detail: "the answer is larger than \(Self.maxDocumentBytes) bytes")
                    }
                    data.append(contentsOf: chunk.readableBytesView)
                }
                return data
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let data = first else {
                throw AttemptFailure(.idleTimeout, detail: "the answer did not arrive within \(limit)")
            }
            return data
        }
    }

    /// `text` with the secret and the session token replaced (a store's message should never
    /// echo them, but nothing it says reaches a log unchecked).
    static func redacting(_ text: String, _ credentials: AWSCredentials) -> String {
        var out = text
        for secret in [credentials.secretAccessKey, credentials.sessionToken ?? ""] where secret.count >= 8 {
            out = out.replacingOccurrences(of: secret, with: "***")
        }
        return out
    }
}
