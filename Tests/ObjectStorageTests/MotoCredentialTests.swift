import Foundation
import NIOConcurrencyHelpers
import ObjectStorage
import Testing

extension MotoTests {
    /// Credentials found as the AWS tools find them, used against moto.
    @Suite struct Credentials {
        /// A scratch directory, removed after `body`.
        static func withDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
            let path = NSTemporaryDirectory() + "object-storage-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try await body(path)
        }

        static func sources(_ environment: [String: String]) -> ConfigurationSources {
            var sources = ConfigurationSources.process
            sources.environment = environment
            return sources
        }

        /// Keys from a profile in shared credentials and config files; moto (IAM on) checks the
        /// signature made with them, and refuses the forbidden bucket naming the profile.
        @Test func profileFiles() async throws {
            let moto = try MotoFixture.shared
            try await Self.withDirectory { dir in
                let keys = moto.iamCredentials
                try
                    "[default]\naws_access_key_id = AKIAWRONG\naws_secret_access_key = wrong\n\n[replay]\naws_access_key_id = \(keys.accessKeyID)\naws_secret_access_key = \(keys.secretAccessKey)\n"
                    .write(toFile: "\(dir)/credentials", atomically: true, encoding: .utf8)
                try "[profile replay]\nregion = eu-west-3\n".write(toFile: "\(dir)/config", atomically: true, encoding: .utf8)
                let sources = Self.sources([
                    "AWS_PROFILE": "replay", "AWS_SHARED_CREDENTIALS_FILE": "\(dir)/credentials",
                    "AWS_CONFIG_FILE": "\(dir)/config", "AWS_ENDPOINT_URL_S3": moto.iam.endpoint,
                ])
                let client = try S3Client(httpClient: moto.httpClient, settings: S3Settings(), sources: sources)
                #expect(client.region == "eu-west-3")
                #expect(client.credentials.source == "profile \"replay\" in \(dir)/credentials (key \(keys.maskedAccessKeyID))")
                #expect(try await client.listObjects(bucket: "replay-iam", prefix: "").count == 1)
                await #expect {
                    _ = try await client.listObjects(bucket: "forbidden-bucket", prefix: "")
                } throws: { error in
                    guard let error = error as? S3Error else { return false }
                    return error.kind == .accessDenied && error.message.contains("profile \"replay\" in \(dir)/credentials")
                        && !error.message.contains(keys.secretAccessKey)
                }
            }
        }

        /// A pod's web identity: the token file and role ARN from the environment, exchanged with
        /// moto's STS for temporary credentials, which then sign the S3 requests.
        @Test func webIdentity() async throws {
            let moto = try MotoFixture.shared
            try await Self.withDirectory { dir in
                try "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6cmVwbGF5In0.c2lnbmF0dXJl\n"
                    .write(toFile: "\(dir)/token", atomically: true, encoding: .utf8)
                let sources = Self.sources([
                    "AWS_WEB_IDENTITY_TOKEN_FILE": "\(dir)/token", "AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/replay-web-identity",
                    "AWS_ROLE_SESSION_NAME": "replay-test", "AWS_ENDPOINT_URL": moto.open.endpoint, "AWS_REGION": "us-east-1",
                ])
                let client = try S3Client(httpClient: moto.httpClient, settings: S3Settings(), sources: sources)
                #expect(client.credentials.source.contains("role arn:aws:iam::123456789012:role/replay-web-identity"))
                let credentials = try await client.credentials.credentials()
                #expect(credentials.accessKeyID.hasPrefix("ASIA"))
                #expect(credentials.sessionToken?.isEmpty == false)
                #expect((credentials.expiration ?? .distantPast) > Date().addingTimeInterval(600))
                #expect(!client.credentials.source.contains(credentials.secretAccessKey))
                #expect(try await client.listObjects(bucket: "replay-objects", prefix: "small/").count == 1)
            }
        }

        /// Cached credentials are used until five minutes before they expire, then exchanged again.
        @Test func webIdentityRefreshesBeforeExpiry() async throws {
            let moto = try MotoFixture.shared
            try await Self.withDirectory { dir in
                try "token-for-refresh-test".write(toFile: "\(dir)/token", atomically: true, encoding: .utf8)
                let clock = NIOLockedValueBox(Date())
                var timing = S3Timing.live
                timing.now = { clock.withLockedValue { $0 } }
                let provider = WebIdentityCredentialProvider(
                    tokenFile: "\(dir)/token", roleARN: "arn:aws:iam::123456789012:role/replay-web-identity", sessionName: nil,
                    stsEndpoint: try S3Endpoint(parsing: moto.open.endpoint), httpClient: moto.httpClient,
                    sources: .process, timing: timing, origin: "the test")
                let first = try await provider.credentials()
                let expiration = try #require(first.expiration)
                #expect(try await provider.credentials() == first)
                clock.withLockedValue { $0 = expiration.addingTimeInterval(-WebIdentityCredentialProvider.refreshMargin - 1) }
                #expect(try await provider.credentials() == first)
                clock.withLockedValue { $0 = expiration.addingTimeInterval(-WebIdentityCredentialProvider.refreshMargin + 1) }
                let renewed = try await provider.credentials()
                #expect(renewed.accessKeyID != first.accessKeyID)
            }
        }

        @Test func unreadableTokenFile() async throws {
            let moto = try MotoFixture.shared
            let sources = Self.sources([
                "AWS_WEB_IDENTITY_TOKEN_FILE": "/nonexistent/token", "AWS_ROLE_ARN": "arn:aws:iam::1:role/r",
                "AWS_ENDPOINT_URL": moto.open.endpoint,
            ])
            let client = try S3Client(httpClient: moto.httpClient, settings: S3Settings(), sources: sources)
            await #expect {
                _ = try await client.listObjects(bucket: "replay-objects", prefix: "")
            } throws: { error in
                guard let error = error as? S3Error else { return false }
                return error.kind == .credentials && error.message.contains("cannot read the token file /nonexistent/token")
            }
        }
    }
}
