import NIOCore

extension S3Client {
    /// The first `count` bytes of an object (all of it when it is smaller), with `If-Match` on
    /// `etag`: one ranged GET, read to its end so the connection is kept for the next request.
    /// Used to recognize an object's content (gzip, snapshot, SimpleAnalytics) before reading it.
    /// A store that ignores the range sends the whole object: only `count` bytes are read then,
    /// and the rest of that answer is dropped with its connection.
    ///
    /// Do not ask for the head of an empty object: S3 answers 416 to any range of it.
    package func readHead(bucket: String, key: String, etag: String?, count: Int) async throws -> [UInt8] {
        precondition(count > 0, "a head of at least one byte")
        var report = report("reading s3://\(bucket)/\(key)", bucket: bucket, key: key)
        report.etag = etag
        return try await withRetries(report) {
            let response = try await send(builder.getObject(bucket: bucket, key: key, range: 0..<UInt64(count), ifMatch: etag))
            do {
                return try await firstBytes(of: response.body, count: count, within: settings.idleTimeout)
            } catch let error as AttemptFailure {
                throw error
            } catch {
                guard let failure = AttemptFailure.transport(error) else { throw CancellationError() }
                throw failure
            }
        }
    }

    /// Up to `count` bytes of `body`, failing with an idle timeout after `limit`.
    private func firstBytes(of body: ObjectHTTPResponse.Body, count: Int, within limit: Duration) async throws -> [UInt8] {
        try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(count)
                for try await chunk in body {
                    bytes += chunk.readableBytesView.prefix(count - bytes.count)
                    if bytes.count == count { break }
                }
                return bytes
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let bytes = first else {
                throw AttemptFailure(.idleTimeout, detail: "the answer did not arrive within \(limit)")
            }
            return bytes
        }
    }
}
