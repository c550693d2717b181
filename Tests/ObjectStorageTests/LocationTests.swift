import ObjectStorage
import Testing

struct LocationTests {
    @Test(arguments: [
        ("s3://my-bucket", "my-bucket", ""), ("s3://my-bucket/", "my-bucket", ""),
        ("s3://my-bucket/segment-logs/abc/", "my-bucket", "segment-logs/abc/"),
        ("s3://my-bucket/a/b.ndjson.gz", "my-bucket", "a/b.ndjson.gz"),
        ("s3://my-bucket/with space/ünïcødé ✓.json", "my-bucket", "with space/ünïcødé ✓.json"),
        ("s3://my-bucket/a+b=c%20d?x#y", "my-bucket", "a+b=c%20d?x#y"),
        ("S3://logs.example.com//double", "logs.example.com", "/double"),
        ("s3://gcs_bucket_1/x", "gcs_bucket_1", "x"),
    ])
    func parses(_ text: String, _ bucket: String, _ path: String) throws {
        let location = try S3Location(parsing: text)
        #expect(location.bucket == bucket)
        #expect(location.path == path)
        #expect(location.isPrefix == (path.isEmpty || path.hasSuffix("/")))
    }

    @Test(arguments: [
        ("s3://", "the bucket name is missing"), ("s3:///key", "the bucket name is missing"),
        ("s3://ab/k", "has 2 characters"), ("s3://\(String(repeating: "a", count: 64))", "has 64 characters"),
        ("s3://My-Bucket/k", "may only contain"), ("s3://bad!bucket", "may only contain"),
        ("s3://-bucket", "must begin and end"), ("s3://bucket-/k", "must begin and end"),
        ("s3://a..b/k", "two periods"), ("s3://192.168.1.1/k", "IP address"),
        ("https://bucket/key", "does not start with s3://"),
        ("s3://bucket/\(String(repeating: "k", count: 1025))", "at most 1024 bytes"),
    ])
    func rejectsWithAClearReason(_ text: String, _ reason: String) {
        #expect {
            _ = try S3Location(parsing: text)
        } throws: { error in
            guard let error = error as? S3Error else { return false }
            return error.kind == .invalidLocation && error.message.contains(reason) && error.message.contains("not a valid S3 location")
        }
    }

    @Test func isS3() {
        #expect(S3Location.isS3("s3://b/k"))
        #expect(S3Location.isS3("S3://b"))
        #expect(!S3Location.isS3("./s3/file.ndjson"))
        #expect(!S3Location.isS3("-"))
    }

    @Test(
        arguments: [
            ("http://127.0.0.1:9000", "http", "127.0.0.1", 9000, "127.0.0.1:9000"),
            ("https://storage.googleapis.com/", "https", "storage.googleapis.com", nil, "storage.googleapis.com"),
            ("HTTPS://acct.r2.cloudflarestorage.com:443", "https", "acct.r2.cloudflarestorage.com", 443, "acct.r2.cloudflarestorage.com"),
            ("http://[::1]:9000", "http", "::1", 9000, "[::1]:9000"),
        ] as [(String, String, String, Int?, String)])
    func parsesEndpoints(_ text: String, _ scheme: String, _ host: String, _ port: Int?, _ authority: String) throws {
        let endpoint = try S3Endpoint(parsing: text)
        #expect(endpoint.scheme == scheme)
        #expect(endpoint.host == host)
        #expect(endpoint.port == port)
        #expect(endpoint.authority == authority)
        #expect(endpoint.isCustom)
    }

    @Test(arguments: ["127.0.0.1:9000", "ftp://host", "http://host:99999", "http://host/bucket", "http://"])
    func rejectsBadEndpoints(_ text: String) {
        #expect(throws: S3Error.self) { _ = try S3Endpoint(parsing: text) }
    }
}
