import Foundation

extension ReplayConfig {
    /// `inputs.s3:` how `s3://` inputs are read: the store, the region, the addressing style and
    /// how patiently. Credentials are not configured here: they are found as the AWS tools find
    /// them (environment, profile, web identity), from ``environment``.
    public struct S3Inputs: Sendable, Equatable {
        /// How the bucket appears in requests (`addressing_style`, the AWS CLI's name and values).
        public enum AddressingStyle: String, Sendable, Equatable, CaseIterable {
            /// Virtual-hosted on AWS, path-style with a custom `endpoint`.
            case auto
            /// `https://host/bucket/key` (MinIO, Ceph, most S3-compatible stores).
            case path
            /// `https://bucket.host/key` (AWS, Cloudflare R2, Google Cloud Storage).
            case virtual
        }

        /// `endpoint`: an S3-compatible store's URL (`http://127.0.0.1:9000`,
        /// `https://ACCOUNT.r2.cloudflarestorage.com`, `https://storage.googleapis.com`); nil for
        /// AWS (or `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` when set).
        public var endpoint: String?
        /// `region`; nil to find it as the AWS tools do (`AWS_REGION`, `AWS_DEFAULT_REGION`, the
        /// profile's `region`, else `us-east-1`).
        public var region: String?
        /// `addressing_style`.
        public var addressingStyle = AddressingStyle.auto
        /// `request_payer`: send `x-amz-request-payer: requester` (requester-pays buckets).
        public var requestPayer = false
        /// `idle_timeout_seconds`: a read that gets no byte for this long is reopened at the last
        /// byte handed on (a `Range` request).
        public var idleTimeoutSeconds: Double = 30
        /// `max_attempts`: failed attempts in a row (500, 503 SlowDown, resets, stalls) before the
        /// run stops `stopped_transient`; an attempt that delivered bytes starts the count again.
        public var maxAttempts = 6
        /// Where the AWS settings and credentials are looked up: the environment the
        /// configuration was loaded with (nil: this process's environment). Never printed.
        public var environment: AWSEnvironment?

        /// Creates the defaults.
        public init() {}
    }

    /// Environment variables for the AWS settings and credentials. Its description never shows
    /// them: they may hold secrets.
    public struct AWSEnvironment: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
        /// The variables.
        public var variables: [String: String]
        /// The given variables.
        public init(_ variables: [String: String]) { self.variables = variables }
        /// `(N environment variables)`.
        public var description: String { "(\(variables.count) environment variables)" }
        /// Reflection shows the count only.
        public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
    }
}
