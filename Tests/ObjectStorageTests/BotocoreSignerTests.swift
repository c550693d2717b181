import Foundation
import ObjectStorage
import TestSupport
import Testing

/// The exact requests this reader makes, signed by this package and by botocore's own S3 signer
/// (Scripts/s3/botocore_sign.py) at one fixed time: the Authorization headers must be equal byte
/// for byte.
struct BotocoreSignerTests {
    struct Case: Sendable {
        var name: String
        var request: S3Request
        var credentials: AWSCredentials
        var region = "us-east-1"
    }

    static let keys = AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let temporary = AWSCredentials(
        accessKeyID: "ASIAIOSFODNN7EXAMPLE", secretAccessKey: "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
        sessionToken: "FwoGZXIvYXdzEJr//////////wEaDExampleSessionToken+/=")
    static let aws = S3RequestBuilder(endpoint: .aws(service: "s3", region: "eu-west-1"), addressing: .automatic, requestPayer: false)
    static let minio = S3RequestBuilder(
        endpoint: try! S3Endpoint(parsing: "http://127.0.0.1:9000"), addressing: .automatic,
        requestPayer: false)
    static let payer = S3RequestBuilder(endpoint: .aws(service: "s3", region: "us-east-1"), addressing: .automatic, requestPayer: true)
    static let oddKey = "logs/2024 01/ünïcødé ✓/a+b=c&d;e,f(g)!*'~.ndjson.gz"

    static var cases: [Case] {
        [
            Case(
                name: "list first page, prefix with specials",
                request: aws.listObjectsV2(bucket: "segment-logs", prefix: "segment-logs/abc 123/+=&/", continuationToken: nil),
                credentials: keys, region: "eu-west-1"),
            Case(
                name: "list next page, continuation token",
                request: aws.listObjectsV2(
                    bucket: "segment-logs", prefix: "segment-logs/",
                    continuationToken: "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=", maxKeys: 1000),
                credentials: temporary, region: "eu-west-1"),
            Case(
                name: "list path-style on a custom endpoint",
                request: minio.listObjectsV2(bucket: "backfill", prefix: "a b/ü/", continuationToken: "tok+en/=="),
                credentials: keys),
            Case(
                name: "get with range and if-match",
                request: aws.getObject(
                    bucket: "segment-logs", key: "segment-logs/part-0001.gz", from: 1_048_576,
                    ifMatch: "\"9b2cf535f27731c974343645a3985328\""),
                credentials: keys, region: "eu-west-1"),
            Case(
                name: "get a key with spaces, unicode, plus and equals, with session token",
                request: aws.getObject(bucket: "segment-logs", key: oddKey, from: 0, ifMatch: "\"abc\""),
                credentials: temporary, region: "eu-west-1"),
            Case(
                name: "get path-style odd key from an offset",
                request: minio.getObject(bucket: "backfill", key: oddKey, from: 17, ifMatch: "\"d41d8cd98f00b204e9800998ecf8427e-3\""),
                credentials: temporary),
            Case(
                name: "head with request payer",
                request: payer.headObject(bucket: "requester-pays", key: "events/2024-01-01.ndjson"), credentials: keys),
            Case(
                name: "get with request payer and token",
                request: payer.getObject(bucket: "requester-pays", key: "events/x y.ndjson", from: 5, ifMatch: "\"e\""),
                credentials: temporary),
            Case(
                name: "dotted bucket over https goes path-style",
                request: aws.listObjectsV2(bucket: "logs.example.com", prefix: "", continuationToken: nil),
                credentials: keys, region: "eu-west-1"),
        ]
    }

    @Test func authorizationMatchesBotocore() async throws {
        let date = Date(timeIntervalSince1970: 1_717_243_200)  // 2024-06-01T12:00:00Z
        var input: [[String: Any]] = []
        var signed: [String: S3Request] = [:]
        for item in Self.cases {
            var request = item.request
            request.sign(with: item.credentials, region: item.region, at: date)
            signed[item.name] = request
            input.append([
                "name": item.name, "method": item.request.method, "url": item.request.url,
                "headers": [["Host", item.request.host]] + item.request.headers.map { [$0.name, $0.value] },
                "access_key_id": item.credentials.accessKeyID, "secret_access_key": item.credentials.secretAccessKey,
                "session_token": item.credentials.sessionToken ?? NSNull(), "region": item.region,
                "timestamp": SigV4.timestamp(date),
            ])
        }
        let python = try await Moto.python()
        let output = try await Subprocess.output(
            python, [Moto.script("botocore_sign.py")],
            input: try JSONSerialization.data(withJSONObject: input))
        let answers = try #require(try JSONSerialization.jsonObject(with: output) as? [[String: Any]])
        #expect(answers.count == Self.cases.count)
        for answer in answers {
            let name = answer["name"] as? String ?? ""
            let request = try #require(signed[name])
            let botocore = answer["authorization"] as? String
            #expect(
                request.header("Authorization") == botocore,
                "\(name): botocore's canonical request was:\n\(answer["canonical_request"] as? String ?? "")")
            #expect(request.header("x-amz-date") == answer["x-amz-date"] as? String)
            #expect(request.header("x-amz-content-sha256") == answer["x-amz-content-sha256"] as? String)
            #expect(request.header("x-amz-security-token") == answer["x-amz-security-token"] as? String)
        }
    }

    @Test func addressing() {
        #expect(
            Self.aws.listObjectsV2(bucket: "b1", prefix: "", continuationToken: nil).url
                == "https://b1.s3.eu-west-1.amazonaws.com/?encoding-type=url&list-type=2")
        #expect(
            Self.aws.getObject(bucket: "my.bucket", key: "a b", from: 0, ifMatch: nil).url
                == "https://s3.eu-west-1.amazonaws.com/my.bucket/a%20b")
        #expect(Self.minio.headObject(bucket: "b1", key: "k/ü").url == "http://127.0.0.1:9000/b1/k/%C3%BC")
        let forced = S3RequestBuilder(
            endpoint: try! S3Endpoint(parsing: "https://acct.r2.cloudflarestorage.com"),
            addressing: .virtualHosted, requestPayer: false)
        #expect(forced.getObject(bucket: "b1", key: "k", from: 3, ifMatch: nil).url == "https://b1.acct.r2.cloudflarestorage.com/k")
        #expect(forced.getObject(bucket: "b1", key: "k", from: 3, ifMatch: nil).header("Range") == "bytes=3-")
        #expect(Self.payer.headObject(bucket: "b1", key: "k").header("x-amz-request-payer") == "requester")
    }
}
