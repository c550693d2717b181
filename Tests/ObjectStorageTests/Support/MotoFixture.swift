import Foundation
import Logging
import NIOPosix
import ObjectStorage
import TestSupport
import Testing

/// The moto servers and HTTP client the live tests share, started once for the ``MotoTests``
/// suite by its ``MotoTrait`` and stopped when the suite ends.
struct MotoFixture: Sendable {
    /// Serves the buckets the reading tests use; checks no signatures.
    let open: MotoServer
    /// Enforces signatures and IAM policies (the forbidden bucket).
    let iam: MotoServer
    /// The interpreter with boto3 and moto.
    let python: String
    /// The HTTP client every S3Client of the tests uses.
    let httpClient: ObjectHTTPClient

    /// The fixture of the running suite.
    @TaskLocal static var current: MotoFixture?

    /// The running suite's fixture; fails the test when there is none.
    static var shared: MotoFixture {
        get throws { try #require(current, "moto tests must run inside @Suite(.moto)") }
    }

    /// Credentials moto's open server takes (it checks no signature).
    static let openCredentials = AWSCredentials(accessKeyID: "AKIDTESTOPEN", secretAccessKey: "open-secret-not-checked")

    /// A client of `server` with `credentials` (the open server's by default).
    func client(
        _ server: MotoServer? = nil, credentials: AWSCredentials? = nil, source: String = "the test's keys",
        settings: (inout S3Settings) -> Void = { _ in }, timing: S3Timing = .live
    ) throws -> S3Client {
        let server = server ?? open
        var chosen = S3Settings(endpoint: server.endpoint, region: "us-east-1")
        settings(&chosen)
        return S3Client(
            httpClient: httpClient, settings: chosen, region: "us-east-1",
            endpoint: try S3Endpoint(parsing: chosen.endpoint ?? server.endpoint),
            credentials: StaticCredentialProvider(credentials ?? Self.openCredentials, source: source),
            timing: timing)
    }

    /// The IAM user's credentials on the `iam` server.
    var iamCredentials: AWSCredentials {
        AWSCredentials(accessKeyID: iam.setup.accessKeyId ?? "", secretAccessKey: iam.setup.secretAccessKey ?? "")
    }

    static func start() async throws -> MotoFixture {
        let python = try await Moto.python()
        let httpClient = ObjectHTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        do {
            async let open = MotoServer.start(mode: "open", python: python, httpClient: httpClient)
            async let iam = MotoServer.start(mode: "iam", python: python, httpClient: httpClient)
            return try await MotoFixture(open: open, iam: iam, python: python, httpClient: httpClient)
        } catch {
            await httpClient.shutdown()
            throw error
        }
    }

    func stop() async throws {
        open.stop()
        iam.stop()
        await httpClient.shutdown()
    }
}

/// Starts the moto servers around a suite, and stops them after it.
struct MotoTrait: SuiteTrait, TestScoping {
    func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let fixture = try await MotoFixture.start()
        do {
            try await MotoFixture.$current.withValue(fixture) { try await function() }
        } catch {
            try await fixture.stop()
            throw error
        }
        try await fixture.stop()
    }
}

extension Trait where Self == MotoTrait {
    /// Runs the suite against moto servers on loopback.
    static var moto: Self { MotoTrait() }
}

/// The tests against a real S3 API (moto's server on loopback); the suites in the files named
/// Moto*.swift are nested here, so they share one pair of servers.
@Suite(.moto) struct MotoTests {}
