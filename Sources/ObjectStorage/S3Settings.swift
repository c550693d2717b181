/// How to reach the store and how patiently to read it (`inputs.s3` in mr-replay's config).
package struct S3Settings: Sendable, Equatable {
    /// How the bucket appears in requests.
    package enum Addressing: Sendable, Equatable {
        /// Virtual-hosted on AWS; path-style with a custom ``S3Settings/endpoint``, and for bucket
        /// names that cannot be a host name (`_`, or `.` over HTTPS).
        case automatic
        /// `https://host/bucket/key` (MinIO, Ceph, most S3-compatible stores).
        case path
        /// `https://bucket.host/key` (AWS, Cloudflare R2, GCS's XML API).
        case virtualHosted
    }

    /// An S3-compatible store's URL (`http://127.0.0.1:9000`, `https://ACCOUNT.r2.cloudflarestorage.com`,
    /// `https://storage.googleapis.com`); nil for AWS (then `AWS_ENDPOINT_URL_S3` or
    /// `AWS_ENDPOINT_URL` are used when set).
    package var endpoint: String?
    /// The region; nil to find it as the AWS tools do (``S3Settings/resolveRegion(_:)``).
    package var region: String?
    /// Path-style or virtual-hosted requests.
    package var addressing: Addressing
    /// Send `x-amz-request-payer: requester` (for requester-pays buckets).
    package var requestPayer: Bool
    /// A read that gets no bytes for this long is reopened at the last byte handed on.
    package var idleTimeout: Duration
    /// How failures are retried.
    package var retry: RetryPolicy
    /// The most bytes an object reader holds between the network and its consumer.
    package var readBufferBytes: Int
    /// The STS endpoint for web identity credentials; nil for `AWS_ENDPOINT_URL_STS`,
    /// `AWS_ENDPOINT_URL`, else `https://sts.REGION.amazonaws.com`.
    package var stsEndpoint: String?

    /// Settings; the defaults suit AWS.
    package init(
        endpoint: String? = nil, region: String? = nil, addressing: Addressing = .automatic,
        requestPayer: Bool = false, idleTimeout: Duration = .seconds(30), retry: RetryPolicy = RetryPolicy(),
        readBufferBytes: Int = 4 << 20, stsEndpoint: String? = nil
    ) {
        self.endpoint = endpoint
        self.region = region
        self.addressing = addressing
        self.requestPayer = requestPayer
        self.idleTimeout = idleTimeout
        self.retry = retry
        self.readBufferBytes = max(64 << 10, readBufferBytes)
        self.stsEndpoint = stsEndpoint
    }

    /// The region: this setting, else `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the profile's
    /// `region` in the config file, else `us-east-1`.
    package func resolveRegion(_ sources: ConfigurationSources) -> String {
        if let region { return region }
        if let region = sources.value("AWS_REGION") ?? sources.value("AWS_DEFAULT_REGION") { return region }
        if let path = sources.configFilePath, let text = sources.readFile(path),
            let region = ProfileFile(parsing: text, kind: .config).profile(sources.profileName)?["region"]
        {
            return region
        }
        return "us-east-1"
    }

    /// The S3 endpoint: this setting, else `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`, else
    /// AWS's for `region`.
    package func resolveEndpoint(_ sources: ConfigurationSources, region: String) throws(S3Error) -> S3Endpoint {
        if let text = endpoint ?? sources.value("AWS_ENDPOINT_URL_S3") ?? sources.value("AWS_ENDPOINT_URL") {
            return try S3Endpoint(parsing: text)
        }
        return S3Endpoint.aws(service: "s3", region: region)
    }

    /// The STS endpoint for web identity: this setting, else `AWS_ENDPOINT_URL_STS`, else
    /// `AWS_ENDPOINT_URL`, else AWS's regional one.
    package func resolveSTSEndpoint(_ sources: ConfigurationSources, region: String) throws(S3Error) -> S3Endpoint {
        if let text = stsEndpoint ?? sources.value("AWS_ENDPOINT_URL_STS") ?? sources.value("AWS_ENDPOINT_URL") {
            return try S3Endpoint(parsing: text)
        }
        return S3Endpoint.aws(service: "sts", region: region)
    }
}
