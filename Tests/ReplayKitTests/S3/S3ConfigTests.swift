import Foundation
import ReplayKit
import Testing

/// `inputs.s3` in the configuration file, and what it becomes.
@Suite struct S3ConfigTests {
    @Test func theSectionIsReadWithEveryKey() throws {
        let config = try ConfigLoader.load(
            text: """
                inputs:
                  s3:
                    endpoint: http://127.0.0.1:9000
                    region: eu-west-1
                    addressing_style: path
                    request_payer: requester
                    idle_timeout_seconds: 12
                    max_attempts: 4
                """, file: "s3.yaml", environment: ["AWS_REGION": "us-east-2"])
        let s3 = config.inputs.s3
        #expect(s3.endpoint == "http://127.0.0.1:9000" && s3.region == "eu-west-1" && s3.addressingStyle == .path)
        #expect(s3.requestPayer && s3.idleTimeoutSeconds == 12 && s3.maxAttempts == 4)
        #expect(s3.environment?.variables["AWS_REGION"] == "us-east-2", "credentials are looked up where the config was loaded")
        #expect(!"\(s3)".contains("us-east-2"), "the environment is never printed")
        let settings = s3.librarySettings
        #expect(settings.addressing == .path && settings.requestPayer && settings.retry.maxAttempts == 4)
        #expect(settings.idleTimeout == .seconds(12))
    }

    @Test(arguments: [
        ("inputs:\n  s3:\n    endpiont: http://x:9000\n", "s3.yaml:3:5: unknown key 'inputs.s3.endpiont'; did you mean 'inputs.s3.endpoint'?"),
        ("inputs:\n  s3:\n    endpoint: ftp://x\n", "s3.yaml:3:15: 'inputs.s3.endpoint': endpoint \"ftp://x\": the scheme must be http or https"),
        ("inputs:\n  s3:\n    endpoint: http://minio:9000/bucket\n", "an endpoint has no path (the bucket goes in the s3:// input)"),
        ("inputs:\n  s3:\n    addressing_style: paht\n", "'inputs.s3.addressing_style' must be auto, path or virtual; did you mean 'path'?"),
        ("inputs:\n  s3:\n    region: EU West\n", "'inputs.s3.region' must be a region name"),
        ("inputs:\n  s3:\n    max_attempts: 0\n", "'inputs.s3.max_attempts' must be between 1 and 100"),
        ("inputs:\n  s4:\n    region: x\n", "did you mean 'inputs.s3'?"),
    ])
    func mistakesAreNamedWithFileLineAndColumn(yaml: String, message: String) {
        #expect {
            _ = try ConfigLoader.load(text: yaml, file: "s3.yaml", environment: [:])
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func sourcesOfObjectsAreShardedByTheirKeyAfterThePrefix() throws {
        #expect(InputSource(path: "/data/in/a.ndjson", kind: .ndjson).shardName == "a.ndjson")
        #expect(throws: InputError.self) { try InputResolver.resolve(["s3://bucket/prefix/"]) }
        #expect(throws: InputFailure.self) { try InputResolver.check(["s3://Bad_Bucket!/x"]) }
        #expect(throws: Never.self) { try InputResolver.check(["s3://good-bucket/segment-logs/"]) }
    }
}
