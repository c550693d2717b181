@testable import Collector
import IngestionChecks
import JSONCore
import Testing

@Suite struct SplitterTests {
    private func split(_ text: String) throws -> [String] {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { b in
            let layout = try ObjectLayout.scanDocument(b)
            let batch = try #require(layout.member("batch", in: b))
            return BatchSplitter.elements(b, array: batch.value).map {
                String(decoding: UnsafeBufferPointer(rebasing: b[$0]), as: UTF8.self)
            }
        }
    }

    @Test(arguments: [
        ("{\"batch\":[]}", []),
        ("{\"batch\":[ ]}", []),
        (
            "{\"batch\":[ {\"a\":[1,{\"b\":\"],}\\\"\"}]} , 2,\"x,\\\\\" ,[[]] ,null ]}",
            ["{\"a\":[1,{\"b\":\"],}\\\"\"}]}", "2", "\"x,\\\\\"", "[[]]", "null"]
        ),
    ] as [(String, [String])])
    func splitsNestedValuesStringsAndEscapes(body: String, elements: [String]) throws {
        #expect(try split(body) == elements)
    }

    @Test func seededGeneratorIsStable() {
        var a = SplitMix64(seed: 7)
        var b = SplitMix64(seed: 7)
        #expect((0..<100).map { _ in a.next() } == (0..<100).map { _ in b.next() })
        var c = SplitMix64(seed: 7)
        let units = (0..<1000).map { _ in c.nextUnit() }
        #expect(units.allSatisfy { $0 >= 0 && $0 < 1 })
    }

    @Test func failFirstAndDownTakePrecedence() {
        let injector = FaultInjector(
            FaultConfiguration(failureStatus: 408, down: DownWindow(start: .seconds(10), duration: .seconds(5)), failFirst: 1))
        #expect(injector.decide(elapsed: .zero) == .fail(408))
        #expect(injector.decide(elapsed: .zero) == FaultDecision.none)
        #expect(injector.decide(elapsed: .seconds(12)) == .fail(503))
        #expect(injector.decide(elapsed: .seconds(15)) == FaultDecision.none)
    }

    @Test(arguments: [
        ("/tmp/a.sqlite", CollectorStore.sqlite("/tmp/a.sqlite")),
        ("/tmp/a.DB", CollectorStore.sqlite("/tmp/a.DB")),
        ("/tmp/a.ndjson", CollectorStore.ndjson("/tmp/a.ndjson")),
    ])
    func storeChoiceByExtension(path: String, store: CollectorStore) {
        #expect(CollectorStore.forPath(path) == store)
    }
}

@Suite struct SkimmerTests {
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

    /// Agrees with the validating splitter on generated batches.
    @Test func agreesWithSplitterOnGeneratedBodies() throws {
        var rng = SplitMix64(seed: 42)
        let pieces = ["1", "\"a,b]\"", "{\"k\":[1,{\"x\":\"}\"}]}", "\"\\\\\"", "null", "[]", "{\"s\":\"\\\"\"}", " 2 "]
        for _ in 0..<300 {
            let n = Int(rng.next() % 12)
            let elements = (0..<n).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }
            let body = "{\"sentAt\":\"x\",\"batch\":[" + elements.joined(separator: ",") + "],\"z\":{}}"
            let bytes = Array(body.utf8)
            let expected = try bytes.withUnsafeBufferPointer { b -> Int in
                let layout = try ObjectLayout.scanDocument(b)
                return BatchSplitter.elements(b, array: try #require(layout.member("batch", in: b)).value).count
            }
            #expect(skim(body)?.events == expected, "\(body)")
        }
    }
}
