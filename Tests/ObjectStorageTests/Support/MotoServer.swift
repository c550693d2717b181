import Foundation
import NIOCore
import ObjectStorage
import TestSupport
import Testing

/// One moto server (TestSupport's `MotoProcess`) on a free loopback port, filled by
/// Scripts/s3/moto_setup.py.
final class MotoServer: Sendable {
    /// `open` (no signature checks) or `iam` (signatures and IAM policies enforced after setup).
    let mode: String
    /// What moto_setup.py printed.
    let setup: MotoSetup
    private let process: MotoProcess

    private init(mode: String, setup: MotoSetup, process: MotoProcess) {
        self.mode = mode
        self.setup = setup
        self.process = process
    }

    /// The port it listens on.
    var port: Int { process.port }

    /// `http://127.0.0.1:PORT`.
    var endpoint: String { process.endpoint }

    /// Starts a server with `python`, waits until it answers, then fills it.
    static func start(mode: String, python: String, httpClient: ObjectHTTPClient) async throws -> MotoServer {
        let process = try await MotoProcess.start(python: python)
        do {
            try await waitUntilAnswering(port: process.port, httpClient: httpClient)
            let output = try await Subprocess.output(python, [Moto.script("moto_setup.py"), process.endpoint, mode])
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let setup = try decoder.decode(MotoSetup.self, from: output)
            return MotoServer(mode: mode, setup: setup, process: process)
        } catch {
            process.stop()
            throw error
        }
    }

    /// Stops the server.
    func stop() { process.stop() }

    /// The size and SHA-256 (hex) moto_setup.py recorded for `key`.
    func object(_ key: String) -> MotoSetup.Object {
        setup.objects?[key] ?? MotoSetup.Object(size: -1, sha256: "")
    }

    private static func waitUntilAnswering(port: Int, httpClient: ObjectHTTPClient) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let request = ObjectHTTPRequest(
                url: "http://127.0.0.1:\(port)/moto-api/", headers: ObjectHTTPHeaders([(name: "Host", value: "127.0.0.1:\(port)")]))
            if let response = try? await httpClient.execute(request, timeout: .seconds(2)) {
                _ = try? await response.body.collect(upTo: 1 << 20)
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Subprocess.Failure(description: "moto did not answer on port \(port) within 60 s")
    }
}

/// What Scripts/s3/moto_setup.py prints.
struct MotoSetup: Decodable, Sendable {
    struct Object: Decodable, Sendable {
        var size: Int
        var sha256: String
    }

    /// open: the objects compared byte for byte.
    var objects: [String: Object]?
    /// open: every key of the listing bucket, sorted.
    var listingKeys: [String]?
    /// iam: the IAM user's access key.
    var accessKeyId: String?
    /// iam: the IAM user's secret.
    var secretAccessKey: String?
}
