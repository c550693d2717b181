import Foundation

/// One object of a listing.
package struct S3Object: Sendable, Hashable {
    /// The key.
    package var key: String
    /// The size in bytes.
    package var size: UInt64
    /// The ETag, quotes included (`"9b2cf535f27731c974343645a3985328"`), as `If-Match` takes it.
    package var etag: String
    /// When it was last written, if the listing said.
    package var lastModified: Date?

    /// An object.
    package init(key: String, size: UInt64, etag: String, lastModified: Date?) {
        self.key = key
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// One page of ListObjectsV2.
package struct ListPage: Sendable, Equatable {
    /// The page's objects, in key order.
    package var objects: [S3Object]
    /// The token for the next page; nil on the last page.
    package var nextContinuationToken: String?

    /// Parses a `ListBucketResult` document. Keys are decoded when the answer says
    /// `<EncodingType>url</EncodingType>` (the request asks for it, so keys with characters XML
    /// cannot carry still list).
    package init(parsing data: Data) throws(S3Error) {
        guard let root = XMLNode.parse(data), root.name == "ListBucketResult" else {
            throw S3Error(.rejected, "the store's ListObjectsV2 answer is not a ListBucketResult document")
        }
        let encoded = root.text(of: "EncodingType") == "url"
        var objects: [S3Object] = []
        for node in root.children("Contents") {
            guard let rawKey = node.text(of: "Key"),
                let key = encoded ? URIEncoding.decode(rawKey, plusIsSpace: true) : rawKey
            else {
                throw S3Error(.rejected, "the store's listing has an object without a readable key")
            }
            let size = node.text(of: "Size").flatMap { UInt64($0.trimmingWhitespace()) } ?? 0
            let lastModified = node.text(of: "LastModified").flatMap(S3DateParsing.iso8601)
            objects.append(S3Object(key: key, size: size, etag: node.text(of: "ETag") ?? "", lastModified: lastModified))
        }
        self.objects = objects
        let truncated = root.text(of: "IsTruncated")?.trimmingWhitespace() == "true"
        let token = root.text(of: "NextContinuationToken")
        nextContinuationToken = truncated ? token.flatMap { $0.isEmpty ? nil : $0 } : nil
        if truncated && nextContinuationToken == nil {
            throw S3Error(.rejected, "the store's listing is truncated but gives no NextContinuationToken")
        }
    }

    /// A page from its parts.
    package init(objects: [S3Object], nextContinuationToken: String?) {
        self.objects = objects
        self.nextContinuationToken = nextContinuationToken
    }
}

/// The `<Error>` document of a refused request.
package struct S3ErrorBody: Sendable, Equatable {
    /// `AccessDenied`, `NoSuchKey`…
    package var code: String?
    /// The store's explanation.
    package var message: String?
    /// The region S3 says the bucket is in (`<Region>`, for a redirect or a malformed authorization).
    package var region: String?

    /// Parses an S3 `<Error>` or an STS `<ErrorResponse><Error>` document; all nil when the body is
    /// empty (HEAD) or not XML.
    package init(parsing data: Data) {
        guard !data.isEmpty, let root = XMLNode.parse(data) else { return }
        let error = root.name == "Error" ? root : root.child("Error")
        code = error?.text(of: "Code")
        message = error?.text(of: "Message")
        region = error?.text(of: "Region")
    }

    /// All nil.
    package init() {}
}

/// The credentials of an `AssumeRoleWithWebIdentity` answer.
package enum STSResponse {
    /// Parses `AssumeRoleWithWebIdentityResponse/AssumeRoleWithWebIdentityResult/Credentials`.
    package static func credentials(parsing data: Data) -> AWSCredentials? {
        guard let root = XMLNode.parse(data),
            let credentials = root.child("AssumeRoleWithWebIdentityResult")?.child("Credentials"),
            let keyID = credentials.text(of: "AccessKeyId")?.trimmingWhitespace(),
            let secret = credentials.text(of: "SecretAccessKey")?.trimmingWhitespace(), !keyID.isEmpty, !secret.isEmpty
        else { return nil }
        return AWSCredentials(
            accessKeyID: keyID, secretAccessKey: secret,
            sessionToken: credentials.text(of: "SessionToken")?.trimmingWhitespace(),
            expiration: credentials.text(of: "Expiration").flatMap(S3DateParsing.iso8601))
    }
}

/// The date formats S3 and STS answer with.
package enum S3DateParsing {
    /// `2024-05-01T12:34:56.000Z` or `2024-05-01T12:34:56Z` (also with an offset, `+00:00`).
    package static func iso8601(_ text: String) -> Date? {
        let trimmed = text.trimmingWhitespace()
        let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        return (try? withFraction.parse(trimmed)) ?? (try? Date.ISO8601FormatStyle().parse(trimmed))
    }
}
