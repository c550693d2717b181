import Foundation

/// One HTTP request to the store: what is signed and what goes on the wire are the same values,
/// so the server computes the signature from exactly the bytes that were signed.
package struct S3Request: Sendable, Equatable {
    /// `GET`, `HEAD`, `PUT`, `POST`.
    package var method: String
    /// Where it goes.
    package var endpoint: S3Endpoint
    /// `Host` header value (the endpoint's authority, with the bucket in front when virtual-hosted).
    package var host: String
    /// The path as sent: percent-encoded once.
    package var encodedPath: String
    /// Query parameters, plain; sent in canonical (sorted, encoded) form.
    package var query: [SigV4.Parameter]
    /// Headers other than `Host`; signing adds `x-amz-date`, `x-amz-content-sha256`,
    /// `x-amz-security-token` and `Authorization`.
    package var headers: [SigV4.Parameter]
    /// The hex SHA-256 of the body (``SigV4/emptyPayloadHash`` for none).
    package var payloadHash: String

    /// A request, unsigned.
    package init(
        method: String, endpoint: S3Endpoint, host: String, encodedPath: String, query: [SigV4.Parameter] = [],
        headers: [SigV4.Parameter] = [], payloadHash: String = SigV4.emptyPayloadHash
    ) {
        self.method = method
        self.endpoint = endpoint
        self.host = host
        self.encodedPath = encodedPath
        self.query = query
        self.headers = headers
        self.payloadHash = payloadHash
    }

    /// The full URL, with the query in canonical form.
    package var url: String {
        let query = SigV4.canonicalQuery(self.query)
        return "\(endpoint.scheme)://\(host)\(encodedPath)" + (query.isEmpty ? "" : "?\(query)")
    }

    /// The value of the header `name` (any case), if present.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Adds the signing headers and `Authorization` for `credentials` at `date`.
    package mutating func sign(with credentials: AWSCredentials, region: String, service: String = "s3", at date: Date) {
        let timestamp = SigV4.timestamp(date)
        headers.removeAll {
            ["authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token"].contains($0.name.lowercased())
        }
        headers.append(SigV4.Parameter("x-amz-content-sha256", payloadHash))
        headers.append(SigV4.Parameter("x-amz-date", timestamp))
        if let token = credentials.sessionToken { headers.append(SigV4.Parameter("x-amz-security-token", token)) }
        let toSign = SigV4.Request(
            method: method, encodedPath: encodedPath, query: query,
            headers: [SigV4.Parameter("host", host)] + headers, payloadHash: payloadHash)
        let authorization = SigV4.authorization(
            toSign, accessKeyID: credentials.accessKeyID,
            secretAccessKey: credentials.secretAccessKey, timestamp: timestamp,
            region: region, service: service)
        headers.append(SigV4.Parameter("Authorization", authorization))
    }
}

/// Builds the requests this reader makes, for one endpoint, region and addressing style.
package struct S3RequestBuilder: Sendable, Equatable {
    /// Where requests go.
    package var endpoint: S3Endpoint
    /// Path-style or virtual-hosted.
    package var addressing: S3Settings.Addressing
    /// Whether to send `x-amz-request-payer: requester`.
    package var requestPayer: Bool

    /// A builder.
    package init(endpoint: S3Endpoint, addressing: S3Settings.Addressing, requestPayer: Bool) {
        self.endpoint = endpoint
        self.addressing = addressing
        self.requestPayer = requestPayer
    }

    /// ListObjectsV2: one page of the keys under `prefix`, URL-encoded keys asked for.
    package func listObjectsV2(bucket: String, prefix: String, continuationToken: String?, maxKeys: Int? = nil) -> S3Request {
        var query = [SigV4.Parameter("list-type", "2"), SigV4.Parameter("encoding-type", "url")]
        if !prefix.isEmpty { query.append(SigV4.Parameter("prefix", prefix)) }
        if let continuationToken { query.append(SigV4.Parameter("continuation-token", continuationToken)) }
        if let maxKeys { query.append(SigV4.Parameter("max-keys", String(maxKeys))) }
        return request("GET", bucket: bucket, key: nil, query: query)
    }

    /// HeadObject.
    package func headObject(bucket: String, key: String) -> S3Request {
        request("HEAD", bucket: bucket, key: key)
    }

    /// GetObject from byte `offset` to the end (`Range: bytes=N-` when `offset > 0`), with
    /// `If-Match` when an ETag is pinned.
    package func getObject(bucket: String, key: String, from offset: UInt64, ifMatch etag: String?) -> S3Request {
        var headers: [SigV4.Parameter] = []
        if offset > 0 { headers.append(SigV4.Parameter("Range", "bytes=\(offset)-")) }
        if let etag { headers.append(SigV4.Parameter("If-Match", etag)) }
        return request("GET", bucket: bucket, key: key, headers: headers)
    }

    /// GetObject of the bytes in `range` only (`Range: bytes=FIRST-LAST`), with `If-Match` when an
    /// ETag is pinned: the head of an object, for recognizing its content.
    package func getObject(bucket: String, key: String, range: Range<UInt64>, ifMatch etag: String?) -> S3Request {
        var headers = [SigV4.Parameter("Range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")]
        if let etag { headers.append(SigV4.Parameter("If-Match", etag)) }
        return request("GET", bucket: bucket, key: key, headers: headers)
    }

    /// Any request on a bucket (`key` nil) or an object.
    package func request(
        _ method: String, bucket: String, key: String?, query: [SigV4.Parameter] = [],
        headers: [SigV4.Parameter] = [], payloadHash: String = SigV4.emptyPayloadHash
    ) -> S3Request {
        var headers = headers
        if requestPayer { headers.append(SigV4.Parameter("x-amz-request-payer", "requester")) }
        let keyPath = key.map { "/" + URIEncoding.path($0) } ?? ""
        if usesVirtualHost(bucket) {
            return S3Request(
                method: method, endpoint: endpoint, host: "\(bucket).\(endpoint.authority)",
                encodedPath: key == nil ? "/" : keyPath, query: query, headers: headers,
                payloadHash: payloadHash)
        }
        return S3Request(
            method: method, endpoint: endpoint, host: endpoint.authority,
            encodedPath: "/\(URIEncoding.path(bucket))\(keyPath)", query: query, headers: headers,
            payloadHash: payloadHash)
    }

    /// Virtual-hosted when asked for, or by default on AWS when the bucket can be a host name
    /// (no `_`; no `.` over HTTPS, where the certificate would not match).
    package func usesVirtualHost(_ bucket: String) -> Bool {
        switch addressing {
        case .path: return false
        case .virtualHosted: return true
        case .automatic:
            return !endpoint.isCustom && !bucket.contains("_") && !(endpoint.scheme == "https" && bucket.contains("."))
        }
    }
}
