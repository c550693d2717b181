import Foundation
import ObjectStorage
import Testing

/// The signer against published vectors.
///
/// `suite` vectors: the AWS Signature Version 4 test suite (aws-sig-v4-test-suite, 2015-08-30,
/// published in the AWS General Reference's "Signature Version 4 test suite" and mirrored in
/// botocore's tests/unit/auth/aws4_testsuite); credentials AKIDEXAMPLE, region us-east-1,
/// service `service`. Only cases that need no path normalization (which S3 does not do) are used.
/// `s3` vectors: the S3 API Reference's "Signature Calculations for the Authorization Header"
/// examples (GET Object with Range, GET Bucket listing), service `s3`.
struct SigV4VectorTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var method: String
        var path: String
        var query: [(String, String)]
        var headers: [(String, String)]
        var payloadHash = SigV4.emptyPayloadHash
        var secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        var keyID = "AKIDEXAMPLE"
        var service = "service"
        var timestamp = "20150830T123600Z"
        var canonicalRequest: String?
        var authorization: String

        var testDescription: String { name }
    }

    static let suiteHost = ("Host", "example.amazonaws.com")
    static let suiteDate = ("X-Amz-Date", "20150830T123600Z")
    static let stsToken =
        "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="
    static let suiteCredential = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request"

    static let vectors: [Vector] = [
        Vector(
            name: "get-vanilla", method: "GET", path: "/", query: [], headers: [suiteHost, suiteDate],
            canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\(SigV4.emptyPayloadHash)",
            authorization:
                "\(suiteCredential), SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(
            name: "get-vanilla-query-order-key-case", method: "GET", path: "/",
            query: [("Param2", "value2"), ("Param1", "value1")], headers: [suiteHost, suiteDate],
            canonicalRequest:
                "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\(SigV4.emptyPayloadHash)",
            authorization:
                "\(suiteCredential), SignedHeaders=host;x-amz-date, Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        Vector(
            name: "get-vanilla-query-order-value", method: "GET", path: "/",
            query: [("Param1", "value2"), ("Param1", "value1")], headers: [suiteHost, suiteDate],
            authorization:
                "\(suiteCredential), SignedHeaders=host;x-amz-date, Signature=5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"),
        Vector(
            name: "get-vanilla-query-unreserved", method: "GET", path: "/",
            query: [
                (
                    "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                    "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                )
            ],
            headers: [suiteHost, suiteDate],
            authorization:
                "\(suiteCredential), SignedHeaders=host;x-amz-date, Signature=9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
        Vector(
            name: "get-vanilla-utf8-query", method: "GET", path: "/", query: [("ሴ", "bar")], headers: [suiteHost, suiteDate],
            canonicalRequest:
                "GET\n/\n%E1%88%B4=bar\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\(SigV4.emptyPayloadHash)",
            authorization:
                "\(suiteCredential), SignedHeaders=host;x-amz-date, Signature=2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        Vector(
            name: "get-unreserved", method: "GET",
            path: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", query: [], headers: [suiteHost, suiteDate],
            authorization:
                "\(suiteCredential), SignedHeaders=host;x-amz-date, Signature=07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        Vector(
            name: "get-header-key-duplicate", method: "GET", path: "/", query: [],
            headers: [suiteHost, ("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1"), suiteDate],
            canonicalRequest:
                "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value2,value2,value1\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n\(SigV4.emptyPayloadHash)",
            authorization:
                "\(suiteCredential), SignedHeaders=host;my-header1;x-amz-date, Signature=c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"
        ),
        Vector(
            name: "get-header-value-trim", method: "GET", path: "/", query: [],
            headers: [suiteHost, ("My-Header1", " value1"), ("My-Header2", " \"a   b   c\""), suiteDate],
            canonicalRequest:
                "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\n\(SigV4.emptyPayloadHash)",
            authorization:
                "\(suiteCredential), SignedHeaders=host;my-header1;my-header2;x-amz-date, Signature=acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"
        ),
        Vector(
            name: "post-vanilla-query", method: "POST", path: "/", query: [("Param1", "value1")], headers: [suiteHost, suiteDate],
            authorization:
                "\(suiteCredential), SignedHeaders=host;x-amz-date, Signature=28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        Vector(
            name: "post-sts-header-before", method: "POST", path: "/", query: [],
            headers: [suiteHost, suiteDate, ("X-Amz-Security-Token", stsToken)],
            authorization:
                "\(suiteCredential), SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead"
        ),
        Vector(
            name: "s3-get-object-range", method: "GET", path: "/test.txt", query: [],
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
                ("x-amz-content-sha256", SigV4.emptyPayloadHash), ("x-amz-date", "20130524T000000Z"),
            ],
            secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", keyID: "AKIAIOSFODNN7EXAMPLE", service: "s3",
            timestamp: "20130524T000000Z",
            authorization:
                "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        ),
        Vector(
            name: "s3-get-bucket-list", method: "GET", path: "/", query: [("max-keys", "2"), ("prefix", "J")],
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("x-amz-content-sha256", SigV4.emptyPayloadHash),
                ("x-amz-date", "20130524T000000Z"),
            ],
            secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", keyID: "AKIAIOSFODNN7EXAMPLE", service: "s3",
            timestamp: "20130524T000000Z",
            authorization:
                "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"
        ),
    ]

    @Test(arguments: vectors)
    func signsLikeThePublishedVector(_ vector: Vector) {
        let request = SigV4.Request(
            method: vector.method, encodedPath: URIEncoding.path(vector.path),
            query: vector.query.map { SigV4.Parameter($0.0, $0.1) },
            headers: vector.headers.map { SigV4.Parameter($0.0, $0.1) },
            payloadHash: vector.payloadHash)
        if let expected = vector.canonicalRequest {
            #expect(SigV4.canonicalRequest(request) == expected)
        }
        let authorization = SigV4.authorization(
            request, accessKeyID: vector.keyID, secretAccessKey: vector.secret,
            timestamp: vector.timestamp, region: "us-east-1", service: vector.service)
        #expect(authorization == vector.authorization)
    }

    /// The suite's get-vanilla string to sign and the signing key derivation, step by step.
    @Test func stringToSignAndKey() {
        let scope = SigV4.Scope(day: "20150830", region: "us-east-1", service: "service")
        let canonical = "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\(SigV4.emptyPayloadHash)"
        let toSign = SigV4.stringToSign(canonicalRequest: canonical, timestamp: "20150830T123600Z", scope: scope)
        #expect(
            toSign
                == "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\nbb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63"
        )
        let key = SigV4.signingKey(secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", scope: scope)
        #expect(SigV4.signature(stringToSign: toSign, key: key) == "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test(arguments: [
        (0.0, "19700101T000000Z"), (1_440_938_160.0, "20150830T123600Z"), (1_369_353_600.999, "20130524T000000Z"),
    ])
    func timestampIsUTC(_ seconds: Double, _ expected: String) {
        #expect(SigV4.timestamp(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test(arguments: [
        ("a b", "a%20b", "a%20b"), ("a/b", "a%2Fb", "a/b"), ("+=&", "%2B%3D%26", "%2B%3D%26"),
        ("ü✓", "%C3%BC%E2%9C%93", "%C3%BC%E2%9C%93"), ("-._~", "-._~", "-._~"), ("%20", "%2520", "%2520"),
    ])
    func encodesEachByteOnce(_ plain: String, _ query: String, _ path: String) {
        #expect(URIEncoding.query(plain) == query)
        #expect(URIEncoding.path(plain) == path)
        #expect(URIEncoding.decode(query, plusIsSpace: false) == plain)
    }
}
