import MetaRouter
import Testing

@testable import MetaRouterDelivery

/// Header lookups by name, as the engine reads `Retry-After` from every answer.
struct HTTPFieldNameTests {
    @Test(arguments: [
        ("Retry-After", "retry-after"), ("RETRY-AFTER", "Retry-After"), ("content-length", "Content-Length"), ("", ""),
        ("x-1_2", "X-1_2"),
    ])
    func namesDifferingOnlyInLetterCaseAreTheSame(a: String, b: String) {
        #expect(HTTPFieldName.same(a, b))
        #expect(HTTPFieldName.same(b, a))
    }

    @Test(arguments: [
        ("Retry-After", "Retry-Afte"), ("Retry-After", "Retry_After"), ("Retry-After", "Retry-After "),
        // Bytes that are one bit (0x20) apart but are not letters in two cases.
        ("@", "`"), ("[", "{"), ("]", "}"), ("^", "~"), ("-", "\r"), ("0", "\u{10}"),
        // Only ASCII letters fold.
        ("É", "é"), ("straße", "STRASSE"),
    ])
    func otherNamesDiffer(a: String, b: String) {
        #expect(!HTTPFieldName.same(a, b))
        #expect(!HTTPFieldName.same(b, a))
    }

    @Test func everyPairOfBytesFoldsOnlyAsciiLetters() {
        for x in UInt8(0)...0x7F {
            for y in UInt8(0)...0x7F {
                let a = String(decoding: [x], as: UTF8.self), b = String(decoding: [y], as: UTF8.self)
                let expected = a.lowercased() == b.lowercased()
                #expect(HTTPFieldName.same(a, b) == expected, "\(x) \(y)")
            }
        }
    }

    @Test func responsesAndRequestsFindTheirHeadersInAnyCase() {
        let response = DeliveryResponse.status(429, headers: [("content-type", "text/plain"), ("RETRY-after", "7")])
        #expect(response.header("Retry-After") == "7")
        #expect(response.header("Retry-Afterx") == nil)
        let request = DeliveryRequest(url: "http://h/v1/batch", headers: [(name: "Content-Encoding", value: "gzip")], body: [], timeout: .seconds(1))
        #expect(request.header("content-encoding") == "gzip")
        #expect(LeanHTTPEndpoint.isFraming("content-LENGTH"))
        #expect(!LeanHTTPEndpoint.isFraming("X-Host"))
    }
}
