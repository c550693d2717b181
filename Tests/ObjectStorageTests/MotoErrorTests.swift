import Foundation
import NIOPosix
import ObjectStorage
import TestSupport
import Testing

extension MotoTests {
    /// Refusals and missing things, classified so the command line can map them to exit statuses;
    /// the IAM ones against moto's server with IAM checks on (it verifies every signature).
    @Suite struct Errors {
        @Test func missingBucket() async throws {
            let client = try MotoFixture.shared.client()
            await #expect {
                _ = try await client.listObjects(bucket: "no-such-bucket", prefix: "")
            } throws: { error in
                guard let error = error as? S3Error else { return false }
                return error.kind == .noSuchBucket && error.status == 404 && error.message.contains("bucket \"no-such-bucket\" does not exist")
            }
            let reading = await readOnThread { client.reader(bucket: "no-such-bucket", key: "k", etag: nil) }
            #expect(reading.error?.kind == .noSuchBucket)
        }

        @Test func missingKey() async throws {
            let client = try MotoFixture.shared.client()
            let reading = await readOnThread { client.reader(bucket: "replay-objects", key: "missing/key.ndjson", etag: nil) }
            let error = try #require(reading.error)
            #expect(error.kind == .noSuchKey)
            #expect(error.code == "NoSuchKey")
            #expect(error.message.contains("s3://replay-objects/missing/key.ndjson does not exist"))
            await #expect {
                _ = try await client.headObject(bucket: "replay-objects", key: "missing/key.ndjson")
            } throws: { ($0 as? S3Error)?.kind == .noSuchKey }
        }

        /// moto checks the signature of these requests with the IAM user's secret.
        @Test func signedRequestsAreAccepted() async throws {
            let moto = try MotoFixture.shared
            let client = try moto.client(moto.iam, credentials: moto.iamCredentials)
            let objects = try await client.listObjects(bucket: "replay-iam", prefix: "")
            #expect(objects.map(\.key) == ["events/one.ndjson"])
            let reading = await readOnThread(keep: true) { client.reader(bucket: "replay-iam", key: "events/one.ndjson", etag: objects[0].etag) }
            #expect(reading.error == nil)
            #expect(String(decoding: reading.bytes, as: UTF8.self) == "{\"type\":\"track\",\"event\":\"one\"}\n")
        }

        @Test func forbiddenBucketNamesBucketAndSourceButNoSecret() async throws {
            let moto = try MotoFixture.shared
            let credentials = moto.iamCredentials
            let client = try moto.client(
                moto.iam, credentials: credentials, source: "profile \"replay\" in /tmp/credentials (key \(credentials.maskedAccessKeyID))")
            var listing: S3Error?
            do {
                _ = try await client.listObjects(bucket: "forbidden-bucket", prefix: "")
            } catch {
                listing = error as? S3Error
            }
            let reading = await readOnThread { client.reader(bucket: "forbidden-bucket", key: "events/one.ndjson", etag: nil) }.error
            for (attempt, failure) in [("list", listing), ("read", reading)] {
                let refused = try #require(failure, "\(attempt) should be refused")
                #expect(refused.kind == .accessDenied)
                #expect(refused.status == 403)
                #expect(refused.message.contains("\"forbidden-bucket\""))
                #expect(refused.message.contains("profile \"replay\" in /tmp/credentials"))
                #expect(!refused.message.contains(credentials.secretAccessKey))
            }
        }

        @Test(arguments: ["wrong-secret", "unknown-key"])
        func badCredentialsAreRefused(_ variant: String) async throws {
            let moto = try MotoFixture.shared
            var credentials = moto.iamCredentials
            if variant == "wrong-secret" {
                credentials.secretAccessKey = "ThisIsNotTheSecret/0123456789abcdefghijk"
            } else {
                credentials.accessKeyID = "AKIAUNKNOWN000000000"
            }
            let client = try moto.client(
                moto.iam, credentials: credentials, source: "the environment (AWS_ACCESS_KEY_ID \(credentials.maskedAccessKeyID))")
            await #expect {
                _ = try await client.listObjects(bucket: "replay-iam", prefix: "")
            } throws: { error in
                guard let error = error as? S3Error else { return false }
                return error.kind == .accessDenied && error.message.contains("the environment (AWS_ACCESS_KEY_ID ****")
                    && !error.message.contains(credentials.secretAccessKey)
            }
        }

        /// Nothing listens: every attempt fails, the policy gives up, and the error says so. (The
        /// client's connect timeout is short, so an attempt the kernel does not refuse at once
        /// still fails fast.)
        @Test func transientFailuresRunOut() async throws {
            // Held, not released: a moto server another test starts cannot take the port.
            let (port, reserved) = try LoopbackPort.reserve()
            defer { close(reserved) }
            let recording = RecordingTiming()
            let httpClient = ObjectHTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, connectTimeout: .milliseconds(200))
            defer { Task { await httpClient.shutdown() } }
            var settings = S3Settings(endpoint: "http://127.0.0.1:\(port)", retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(100)))
            settings.region = "us-east-1"
            let client = S3Client(
                httpClient: httpClient, settings: settings, region: "us-east-1",
                endpoint: try S3Endpoint(parsing: "http://127.0.0.1:\(port)"),
                credentials: StaticCredentialProvider(MotoFixture.openCredentials, source: "test"),
                timing: recording.timing)
            await #expect {
                _ = try await client.listObjects(bucket: "replay-listing", prefix: "")
            } throws: { error in
                guard let error = error as? S3Error else { return false }
                return error.kind == .retriesExhausted && error.message.contains("gave up after 3 attempts")
                    && error.message.contains("cannot connect to 127.0.0.1:\(port)")
            }
            #expect(recording.recorded == [.milliseconds(75), .milliseconds(150)])
            let reading = await readOnThread { client.reader(bucket: "replay-listing", key: "k", etag: nil) }
            #expect(reading.error?.kind == .retriesExhausted)
        }
    }
}
