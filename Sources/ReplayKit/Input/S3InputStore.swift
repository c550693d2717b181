import Foundation
import ObjectStorage
import ReplayConfiguration

/// Where `s3://` inputs are read from, for one command: the S3 client (store, region,
/// credentials) built from `inputs.s3`, and the cancellation that a stop request raises to wake
/// a read blocked on the network.
package final class S3InputStore: Sendable {
    /// The client every object of the command is listed and read with.
    package let client: S3Client
    /// Raised by a stop request: a read blocked on the network returns at once.
    package let cancellation: ReadCancellation

    /// A store for `settings`, its region, endpoint and credentials found as the AWS tools find
    /// them, read with `http`'s client (the store is used only while that client runs). Throws
    /// ``InputFailure`` when no credentials can be found or a setting is invalid.
    package init(settings: ReplayConfig.S3Inputs, http: S3HTTPClient) throws {
        let sources = ConfigurationSources(
            environment: settings.environment?.variables ?? ProcessInfo.processInfo.environment,
            readFile: ConfigurationSources.process.readFile)
        do {
            client = try S3Client(httpClient: http.client, settings: settings.librarySettings, sources: sources)
        } catch {
            throw InputFailure(error)
        }
        cancellation = ReadCancellation()
    }

    /// Where the credentials come from (never a secret).
    package var credentialSource: String { client.credentials.source }

    /// What a run's report records about the store (`inputs.s3.*`), without secrets.
    package var reportSettings: [String: String] {
        let addressing: String
        switch client.settings.addressing {
        case .automatic: addressing = "auto"
        case .path: addressing = "path"
        case .virtualHosted: addressing = "virtual"
        }
        return [
            "inputs.s3.endpoint": client.builder.endpoint.description,
            "inputs.s3.region": client.region,
            "inputs.s3.addressing_style": addressing,
            "inputs.s3.request_payer": String(client.settings.requestPayer),
            "inputs.s3.idle_timeout_seconds": String(client.settings.idleTimeout.components.seconds),
            "inputs.s3.max_attempts": String(client.settings.retry.maxAttempts),
            "inputs.s3.credentials": credentialSource,
        ]
    }
}

extension ReplayConfig.S3Inputs {
    /// The reader's settings.
    package var librarySettings: S3Settings {
        let addressing: S3Settings.Addressing
        switch addressingStyle {
        case .auto: addressing = .automatic
        case .path: addressing = .path
        case .virtual: addressing = .virtualHosted
        }
        return S3Settings(
            endpoint: endpoint, region: region, addressing: addressing, requestPayer: requestPayer,
            idleTimeout: .milliseconds(Int64((idleTimeoutSeconds * 1000).rounded())),
            retry: RetryPolicy(maxAttempts: maxAttempts))
    }
}

/// One S3 object an input names: what the listing said about it, and the store it is read from.
/// Equal objects have the same bucket, key and ETag.
package struct S3InputObject: Sendable, Hashable {
    /// The bucket.
    package let bucket: String
    /// The key.
    package let key: String
    /// The ETag from the listing: every read is pinned to it (`If-Match`), so a run reads one
    /// version of the object, and the checkpoint records it.
    package let etag: String
    /// The size in bytes (compressed, for a gzip object).
    package let size: UInt64
    /// When it was written (an SDK snapshot's age limit counts back from it).
    package let lastModified: Date?
    /// Whether its content is gzip (its first bytes, seen when it was recognized).
    package var isGzip = false
    /// Its first bytes (up to ``InputReader/sniffBytes``), seen when it was recognized, kept
    /// even when its head is not: they tell its shape (a JSON array, say) without a GET.
    var firstBytes: [UInt8] = []
    /// The store it is read from.
    package let store: S3InputStore
    /// The object's first bytes, kept while it is recognized (so recognition reads no byte
    /// twice), and after that only when they are the whole object (within ``SmallObjectBudget``),
    /// so reading it needs no other request; nil otherwise.
    var head: [UInt8]?

    /// An object of a listing.
    init(_ object: S3Object, bucket: String, store: S3InputStore) {
        self.bucket = bucket
        key = object.key
        etag = object.etag
        size = object.size
        lastModified = object.lastModified
        self.store = store
    }

    /// `s3://bucket/key`: the input's name in messages, reports, dead letters and its checkpoint.
    package var url: String { "s3://\(bucket)/\(key)" }

    package static func == (a: S3InputObject, b: S3InputObject) -> Bool {
        a.bucket == b.bucket && a.key == b.key && a.etag == b.etag
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(bucket)
        hasher.combine(key)
        hasher.combine(etag)
    }
}
