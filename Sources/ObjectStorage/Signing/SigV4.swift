import Digests
import Foundation

/// Signature Version 4 (`AWS4-HMAC-SHA256`), the way S3 takes it: pure functions from a request's
/// parts, the credentials and a time to the `Authorization` header.
///
/// Written here because no Swift AWS SDK can be built on this project's machines (see
/// docs/s3.md). The steps follow the published algorithm: canonical request, string to sign,
/// signing key, signature. Tests check them against the AWS test suite's vectors and against
/// botocore's signer.
package enum SigV4 {
    /// The SHA-256 of an empty body: the payload hash of a GET or HEAD.
    package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash S3 accepts for a body it should not check.
    package static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// The algorithm's name, first in the string to sign and the header.
    package static let algorithm = "AWS4-HMAC-SHA256"

    /// What the canonical request is made of.
    package struct Request: Sendable, Equatable {
        /// `GET`, `HEAD`, `POST`…
        package var method: String
        /// The path exactly as it goes on the wire, already percent-encoded once
        /// (``URIEncoding/path(_:)``).
        package var encodedPath: String
        /// Query parameters, plain (not encoded); order does not matter.
        package var query: [Parameter]
        /// The headers to sign, `host` included; names in any case, repeated names allowed.
        package var headers: [Parameter]
        /// The hex SHA-256 of the body, or ``SigV4/unsignedPayload``.
        package var payloadHash: String

        /// A request to sign.
        package init(method: String, encodedPath: String, query: [Parameter], headers: [Parameter], payloadHash: String) {
            self.method = method
            self.encodedPath = encodedPath
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    /// A name and a value (a query parameter or a header).
    package struct Parameter: Sendable, Equatable {
        /// The name.
        package var name: String
        /// The value.
        package var value: String

        /// A name and its value.
        package init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Where a signature is valid: the day, the region and the service.
    package struct Scope: Sendable, Equatable {
        /// `yyyyMMdd` of the request time.
        package var day: String
        /// The region, e.g. `us-east-1`.
        package var region: String
        /// The service, `s3` or `sts`.
        package var service: String

        /// A scope.
        package init(day: String, region: String, service: String) {
            self.day = day
            self.region = region
            self.service = service
        }

        /// `day/region/service/aws4_request`.
        package var text: String { "\(day)/\(region)/\(service)/aws4_request" }
    }

    /// The canonical request: method, path, query, headers, signed header names, payload hash.
    package static func canonicalRequest(_ request: Request) -> String {
        let (headers, signed) = canonicalHeaders(request.headers)
        return [
            request.method, request.encodedPath.isEmpty ? "/" : request.encodedPath,
            canonicalQuery(request.query), headers, signed, request.payloadHash,
        ].joined(separator: "\n")
    }

    /// Name=value pairs, each side encoded, sorted by encoded name then value, joined with `&`.
    /// Also the form the query takes on the wire, so the server sees what was signed.
    package static func canonicalQuery(_ query: [Parameter]) -> String {
        query.map { (URIEncoding.query($0.name), URIEncoding.query($0.value)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// The canonical header block (lower-case names, sorted, values trimmed with inner runs of
    /// spaces collapsed, repeated names joined with commas, each line ending in a newline) and the
    /// signed header names (`host;x-amz-date`).
    package static func canonicalHeaders(_ headers: [Parameter]) -> (block: String, signed: String) {
        var byName: [String: [String]] = [:]
        for header in headers {
            let value = header.value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            byName[header.name.lowercased(), default: []].append(value)
        }
        let sorted = byName.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        let block = sorted.map { "\($0.key):\($0.value.joined(separator: ","))\n" }.joined()
        return (block, sorted.map(\.key).joined(separator: ";"))
    }

    /// `AWS4-HMAC-SHA256`, the time, the scope and the hex SHA-256 of the canonical request.
    package static func stringToSign(canonicalRequest: String, timestamp: String, scope: Scope) -> String {
        let hash = Digest.hex(Digest.sha256(Array(canonicalRequest.utf8)))
        return [algorithm, timestamp, scope.text, hash].joined(separator: "\n")
    }

    /// HMAC chain: `AWS4` + secret -> day -> region -> service -> `aws4_request`.
    package static func signingKey(secretAccessKey: String, scope: Scope) -> [UInt8] {
        var key = Array("AWS4\(secretAccessKey)".utf8)
        for part in [scope.day, scope.region, scope.service, "aws4_request"] {
            key = Digest.hmacSHA256(key: key, message: Array(part.utf8))
        }
        return key
    }

    /// The hex signature of `stringToSign`.
    package static func signature(stringToSign: String, key: [UInt8]) -> String {
        Digest.hex(Digest.hmacSHA256(key: key, message: Array(stringToSign.utf8)))
    }

    /// The `Authorization` header value for `request` signed at `timestamp` (``timestamp(_:)``).
    package static func authorization(
        _ request: Request, accessKeyID: String, secretAccessKey: String, timestamp: String, region: String,
        service: String
    ) -> String {
        let scope = Scope(day: String(timestamp.prefix(8)), region: region, service: service)
        let canonical = canonicalRequest(request)
        let toSign = stringToSign(canonicalRequest: canonical, timestamp: timestamp, scope: scope)
        let signature = signature(stringToSign: toSign, key: signingKey(secretAccessKey: secretAccessKey, scope: scope))
        return
            "\(algorithm) Credential=\(accessKeyID)/\(scope.text), SignedHeaders=\(canonicalHeaders(request.headers).signed), Signature=\(signature)"
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC (the `x-amz-date` header).
    package static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        // Safe: `&seconds` and `&parts` point to one time_t and one tm, valid for the call, which
        // reads the first and writes the second.
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
