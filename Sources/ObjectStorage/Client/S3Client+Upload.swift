import Digests
import Foundation
import NIOCore

/// Writing objects: a whole object in one PUT, or a large one as a multipart upload (create,
/// parts of at least 5 MiB but the last, complete; abort on failure), each request signed with
/// its payload's SHA-256 and retried as reads are.
extension S3Client {
    /// The smallest part of a multipart upload but the last (S3's rule).
    package static let minimumPartSize = 5 << 20

    /// PutObject: `bytes` as `key`.
    package func putObject(bucket: String, key: String, bytes: [UInt8]) async throws {
        let report = report("writing s3://\(bucket)/\(key)", bucket: bucket, key: key)
        try await withRetries(report) {
            let request = builder.request("PUT", bucket: bucket, key: key, payloadHash: Self.hexSHA256(bytes))
            _ = try await sendWhole(request, body: bytes)
        }
    }

    /// CreateMultipartUpload: the upload id.
    package func createMultipartUpload(bucket: String, key: String) async throws -> String {
        let report = report("starting an upload of s3://\(bucket)/\(key)", bucket: bucket, key: key)
        return try await withRetries(report) {
            let request = builder.request("POST", bucket: bucket, key: key, query: [SigV4.Parameter("uploads", "")])
            let body = try await sendWhole(request, body: [])
            guard let id = XMLNode.parse(body)?.text(of: "UploadId"), !id.isEmpty else {
                throw AttemptFailure(.clientError(status: 200, code: nil), detail: "the answer names no UploadId")
            }
            return id
        }
    }

    /// UploadPart: part `number` (from 1) of upload `uploadId`; its ETag.
    package func uploadPart(bucket: String, key: String, uploadId: String, number: Int, bytes: [UInt8]) async throws -> String {
        let report = report("uploading part \(number) of s3://\(bucket)/\(key)", bucket: bucket, key: key)
        let hash = Self.hexSHA256(bytes)
        return try await withRetries(report) {
            let query = [SigV4.Parameter("partNumber", String(number)), SigV4.Parameter("uploadId", uploadId)]
            let request = builder.request("PUT", bucket: bucket, key: key, query: query, payloadHash: hash)
            let response = try await send(request, body: bytes)
            _ = try await collect(response.body, within: settings.idleTimeout)
            guard let etag = response.headers.first(name: "ETag") else {
                throw AttemptFailure(.clientError(status: response.status, code: nil), detail: "the answer has no ETag")
            }
            return etag
        }
    }

    /// CompleteMultipartUpload with the parts' ETags, in order. S3 may answer 200 with an error
    /// in the body; that is an error too.
    package func completeMultipartUpload(bucket: String, key: String, uploadId: String, etags: [String]) async throws {
        let report = report("completing the upload of s3://\(bucket)/\(key)", bucket: bucket, key: key)
        var xml = "<CompleteMultipartUpload>"
        for (i, etag) in etags.enumerated() {
            xml += "<Part><PartNumber>\(i + 1)</PartNumber><ETag>\(Self.escapeXML(etag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        let bytes = Array(xml.utf8)
        try await withRetries(report) {
            let request = builder.request(
                "POST", bucket: bucket, key: key, query: [SigV4.Parameter("uploadId", uploadId)],
                payloadHash: Self.hexSHA256(bytes))
            let body = try await sendWhole(request, body: bytes)
            if let root = XMLNode.parse(body), root.name == "Error" {
                throw AttemptFailure(status: 200, body: S3ErrorBody(parsing: body))
            }
        }
    }

    /// AbortMultipartUpload: frees the parts of an upload that will not be completed (best effort).
    package func abortMultipartUpload(bucket: String, key: String, uploadId: String) async {
        let request = builder.request("DELETE", bucket: bucket, key: key, query: [SigV4.Parameter("uploadId", uploadId)])
        _ = try? await sendWhole(request, body: [])
    }

    /// Sends `request` with `body` and reads the whole answer.
    func sendWhole(_ request: S3Request, body: [UInt8]) async throws -> Data {
        let response = try await send(request, body: body)
        do {
            return try await collect(response.body, within: settings.idleTimeout)
        } catch let error as AttemptFailure {
            throw error
        } catch {
            guard let failure = AttemptFailure.transport(error) else { throw CancellationError() }
            throw failure
        }
    }

    /// The lowercase hex SHA-256 of `bytes` (a request's payload hash).
    static func hexSHA256(_ bytes: [UInt8]) -> String {
        Digest.hex(Digest.sha256(bytes))
    }

    static func escapeXML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
