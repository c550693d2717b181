import Foundation
import ReplayKit
import TestSupport
import Testing

/// moto's S3 server on a free loopback port for the end-to-end S3 tests, started once for the
/// ``S3RunTests`` suites by ``S3MotoTrait``: `open` checks no signature (any keys read it);
/// `iam` checks signatures and IAM policies (Scripts/s3/moto_setup.py: `forbidden-bucket` is
/// denied to its user). Interpreter: Scripts/s3/python.sh (this machine's, or a virtual
/// environment it makes in .build/).
struct S3Moto: Sendable {
    /// The open server's endpoint, `http://127.0.0.1:PORT`.
    let endpoint: String
    /// The open server's port.
    var port: Int { Int(endpoint.split(separator: ":").last ?? "") ?? 0 }
    /// The IAM-checking server's endpoint.
    let iamEndpoint: String
    /// The IAM user's keys on `iamEndpoint`.
    let iamKeyID: String
    let iamSecret: String
    let python: String
    private let processes: [MotoProcess]

    /// The fixture of the running suite.
    @TaskLocal static var current: S3Moto?

    /// The running suite's fixture.
    static var shared: S3Moto {
        get throws { try #require(current, "S3 tests must run inside @Suite(.s3Moto)") }
    }

    /// Any keys read the open server; these are what the tests give mr-replay.
    static let keyID = "AKIDREPLAYTEST"
    static let secret = "replay-test-secret-never-printed"

    static func start() async throws -> S3Moto {
        let python = try await Moto.python()
        let open = try await MotoProcess.start(python: python)
        let iam = try await MotoProcess.start(python: python)
        do {
            try await Subprocess.output(python, [Moto.script("moto_objects.py"), open.endpoint, "wait"])
            try await Subprocess.output(python, [Moto.script("moto_objects.py"), iam.endpoint, "wait"])
            let output = try await Subprocess.output(python, [Moto.script("moto_setup.py"), iam.endpoint, "iam"])
            let setup = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
            return S3Moto(
                endpoint: open.endpoint, iamEndpoint: iam.endpoint, iamKeyID: setup["access_key_id"] as? String ?? "",
                iamSecret: setup["secret_access_key"] as? String ?? "", python: python, processes: [open, iam])
        } catch {
            open.stop()
            iam.stop()
            throw error
        }
    }

    func stop() { processes.forEach { $0.stop() } }

    /// Uploads `objects` (key → local file) to `bucket` on the open server (made if needed);
    /// returns their ETags.
    @discardableResult
    func put(bucket: String, _ objects: [String: String]) async throws -> [String: String] {
        let spec = try JSONSerialization.data(withJSONObject: ["bucket": bucket, "objects": objects])
        let output = try await Subprocess.output(python, [Moto.script("moto_objects.py"), endpoint, "put"], input: spec)
        let answer = try JSONSerialization.jsonObject(with: output) as? [String: Any]
        return answer?["etags"] as? [String: String] ?? [:]
    }

    /// The environment mr-replay gets: the test keys, and a HOME without AWS files.
    func environment(home: String, keyID: String = S3Moto.keyID, secret: String = S3Moto.secret) -> [String: String] {
        ["AWS_ACCESS_KEY_ID": keyID, "AWS_SECRET_ACCESS_KEY": secret, "HOME": home, "PATH": "/usr/bin:/bin"]
    }

    /// The `inputs` section for `endpoint` (the open server's by default); `inputsExtra` holds
    /// more `inputs` members, indented by two spaces.
    func configSection(endpoint: String? = nil, inputsExtra: String = "", extra: String = "") -> String {
        """
        inputs:
        \(inputsExtra)
          s3:
            endpoint: \(endpoint ?? self.endpoint)
            region: us-east-1
            max_attempts: 3
            idle_timeout_seconds: 5
        \(extra)
        """
    }
}

/// Starts moto around a suite and stops it after.
struct S3MotoTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let moto = try await S3Moto.start()
        defer { moto.stop() }
        try await S3Moto.$current.withValue(moto) { try await function() }
    }
}

extension Trait where Self == S3MotoTrait {
    /// Runs the suite against moto's S3 server on loopback.
    static var s3Moto: Self { S3MotoTrait() }
}
