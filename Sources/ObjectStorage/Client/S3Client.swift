import Foundation
import Logging
import NIOCore

/// Reads S3 and S3-compatible stores over the caller's ``ObjectHTTPClient``: lists objects, HEADs
/// them and streams them. It starts nothing: the HTTP client (and its event loops) belong to the
/// caller, who shuts it down.
///
/// Every method retries what a retry can fix (``RetryState``) and throws ``S3Error`` otherwise.
package final class S3Client: Sendable {
    /// The caller's HTTP client.
    package let httpClient: ObjectHTTPClient
    /// The settings.
    package let settings: S3Settings
    /// The region requests are signed for.
    package let region: String
    /// Builds the requests (endpoint, addressing, request payer).
    package let builder: S3RequestBuilder
    /// Where credentials come from.
    package let credentials: any CredentialProvider
    /// Clock, randomness and sleeping.
    package let timing: S3Timing
    let logger: Logger

    /// A client for a known region, endpoint and credential provider.
    package init(
        httpClient: ObjectHTTPClient, settings: S3Settings, region: String, endpoint: S3Endpoint,
        credentials: any CredentialProvider, timing: S3Timing = .live,
        logger: Logger = Logger(label: "mr-replay.s3")
    ) {
        self.httpClient = httpClient
        self.settings = settings
        self.region = region
        self.builder = S3RequestBuilder(
            endpoint: endpoint, addressing: settings.addressing,
            requestPayer: settings.requestPayer)
        self.credentials = credentials
        self.timing = timing
        self.logger = logger
    }

    /// A client that finds its region, endpoint and credentials as the AWS tools do, from `sources`.
    package convenience init(
        httpClient: ObjectHTTPClient, settings: S3Settings, sources: ConfigurationSources = .process,
        timing: S3Timing = .live, logger: Logger = Logger(label: "mr-replay.s3")
    ) throws(S3Error) {
        let region = settings.resolveRegion(sources)
        let endpoint = try settings.resolveEndpoint(sources, region: region)
        let provider = try CredentialChain.resolve(
            sources: sources, settings: settings, region: region,
            httpClient: httpClient, timing: timing)
        self.init(
            httpClient: httpClient, settings: settings, region: region, endpoint: endpoint,
            credentials: provider, timing: timing, logger: logger)
    }

    /// One page of the keys under `prefix` (ListObjectsV2).
    package func listPage(bucket: String, prefix: String, continuationToken: String?, maxKeys: Int? = nil) async throws -> ListPage {
        let report = report("listing s3://\(bucket)/\(prefix)", bucket: bucket, key: nil)
        return try await withRetries(report) {
            let request = builder.listObjectsV2(
                bucket: bucket, prefix: prefix, continuationToken: continuationToken,
                maxKeys: maxKeys)
            let body = try await fetchWhole(request)
            do {
                return try ListPage(parsing: body)
            } catch {
                throw AttemptFailure(.clientError(status: 200, code: nil), detail: "\(error)")
            }
        }
    }

    /// Every object under `prefix`, in key order, following continuation tokens.
    package func listObjects(bucket: String, prefix: String, pageSize: Int? = nil) async throws -> [S3Object] {
        var objects: [S3Object] = []
        var token: String?
        repeat {
            let page = try await listPage(bucket: bucket, prefix: prefix, continuationToken: token, maxKeys: pageSize)
            objects += page.objects
            token = page.nextContinuationToken
        } while token != nil
        objects.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return objects
    }

    /// The objects an input names: a prefix's objects (empty path, or ending in `/`); for any other
    /// path the object with exactly that key if there is one, else the objects under `path/`.
    /// An empty answer means nothing is there (the caller warns, as for an empty file).
    package func objects(at location: S3Location) async throws -> [S3Object] {
        let listed = try await listObjects(bucket: location.bucket, prefix: location.path)
        if location.isPrefix { return listed }
        if let exact = listed.first(where: { $0.key == location.path }) { return [exact] }
        return listed.filter { $0.key.hasPrefix(location.path + "/") }
    }

    /// HeadObject: the object's size, ETag and last-modified time.
    package func headObject(bucket: String, key: String) async throws -> ObjectHead {
        let report = report("reading s3://\(bucket)/\(key)", bucket: bucket, key: key)
        return try await withRetries(report) {
            let response = try await send(builder.headObject(bucket: bucket, key: key))
            return ObjectHead(response: response, offset: 0)
        }
    }

    /// GetObject from byte `offset`, with `If-Match` on `etag` when given. Opening is retried; the
    /// returned body streams with backpressure, and a failure while streaming is the caller's to
    /// handle (``S3ObjectReader`` reopens at the last byte).
    package func getObject(bucket: String, key: String, from offset: UInt64 = 0, ifMatch etag: String? = nil) async throws -> ObjectStream {
        var report = report("reading s3://\(bucket)/\(key)", bucket: bucket, key: key)
        report.etag = etag
        return try await withRetries(report) { try await openObject(bucket: bucket, key: key, from: offset, ifMatch: etag) }
    }

    /// A blocking, resumable reader of one object, for a reader thread (``S3ObjectReader``).
    package func reader(
        bucket: String, key: String, etag: String?, offset: UInt64 = 0, size: UInt64? = nil,
        cancellation: ReadCancellation = ReadCancellation()
    ) -> S3ObjectReader {
        S3ObjectReader(
            client: self, bucket: bucket, key: key, etag: etag, offset: offset, size: size,
            cancellation: cancellation)
    }

    /// The report for failures of `action`.
    func report(_ action: String, bucket: String, key: String?) -> FailureReport {
        FailureReport(action: action, bucket: bucket, key: key, credentialSource: credentials.source)
    }
}
