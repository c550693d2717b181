import Testing

@testable import IngestionChecks

/// The request target as the servers route it: origin form, and the absolute form a forwarding
/// proxy passes on.
@Suite struct IngestionPathsTests {
    @Test(arguments: [
        ("/v1/batch", "/v1/batch"),
        ("/v1/batch/", "/v1/batch"),
        ("/v1/batch?x=1", "/v1/batch"),
        ("/", "/"),
        ("http://127.0.0.1:8080/v1/batch", "/v1/batch"),
        ("HTTP://ingest.example.com/base/v1/batch/?q#f", "/base/v1/batch"),
        ("http://ingest.example.com", "/"),
        ("http://ingest.example.com?x=1", "/"),
        ("/path/with://inside", "/path/with://inside"),
    ])
    func targets(uri: String, path: String) {
        #expect(IngestionPaths.path(of: uri) == Substring(path))
    }
}
