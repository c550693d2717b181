import IngestionChecks
import JSONCore
import TestSupport
import Testing

/// The batch-shape check both servers apply (`BatchSkimmer`), checked against a validating
/// parse.
@Suite struct BatchSkimmerTests {
    private func skim(_ text: String) -> BatchSkimmer.Summary? {
        Array(text.utf8).withUnsafeBufferPointer { BatchSkimmer.skim($0) }
    }

    @Test(arguments: [
        ("{\"batch\":[]}", 0),
        (" { \"batch\" : [ ] } ", 0),
        ("{\"batch\":[ {\"a\":[1,{\"b\":\"],}\\\"\"}]} , 2,\"x,\\\\\" ,[[]] ,null ]}", 5),
        // A "batch" key inside another member, or inside a string, is not the batch.
        ("{\"x\":{\"batch\":[1,2]},\"batch\":[3]}", 1),
        ("{\"x\":\"\\\"batch\\\":[1,2]\",\"batch\":[3,4,5]}", 3),
        ("{\"sentAt\":\"t\",\"batch\":[{\"k\":\"\\\\\"},{}]}", 2),
    ])
    func countsTopLevelBatchElementsOnly(body: String, events: Int) {
        #expect(skim(body)?.events == events)
    }

    @Test(arguments: [
        "{\"batch\":[{\"a\":1},{\"abc\":12345}]}",
        // Whitespace around an element is not part of it (as in the validating splitter).
        "{\"batch\":[ {\"abc\":12345} \n, {\"a\":1}\n]}",
    ])
    func largestElementIsMeasured(body: String) {
        #expect(skim(body)?.largestEvent == 13)
    }

    @Test(arguments: ["", "[1,2]", "{\"batch\":{}}", "{\"other\":[1]}", "{\"batch\":[1,", "{\"batch\":[\"abc"])
    func missingOrTruncatedBatchIsNil(body: String) {
        #expect(skim(body) == nil)
    }

    /// Agrees with a validating parse on generated batches.
    @Test func agreesWithAValidatingParseOnGeneratedBodies() throws {
        var rng = SeededRandom(seed: 42)
        let pieces = ["1", "\"a,b]\"", "{\"k\":[1,{\"x\":\"}\"}]}", "\"\\\\\"", "null", "[]", "{\"s\":\"\\\"\"}", " 2 "]
        for _ in 0..<300 {
            let n = Int(rng.next() % 12)
            let elements = (0..<n).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }
            let body = "{\"sentAt\":\"x\",\"batch\":[" + elements.joined(separator: ",") + "],\"z\":{}}"
            let parsed = try JSONValue(parsing: body)
            let expected = try #require(parsed.objectValue?["batch"]?.arrayValue).count
            #expect(skim(body)?.events == expected, "\(body)")
        }
    }
}
