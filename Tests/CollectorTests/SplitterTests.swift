@testable import Collector
import JSONCore
import XCTest

final class SplitterTests: XCTestCase {
    private func split(_ text: String) throws -> [String] {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { b in
            let layout = try ObjectLayout.scanDocument(b)
            let batch = try XCTUnwrap(layout.member("batch", in: b))
            return BatchSplitter.elements(b, array: batch.value).map {
                String(decoding: UnsafeBufferPointer(rebasing: b[$0]), as: UTF8.self)
            }
        }
    }

    func testSplitsNestedValuesStringsAndEscapes() throws {
        XCTAssertEqual(try split("{\"batch\":[]}"), [])
        XCTAssertEqual(try split("{\"batch\":[ ]}"), [])
        XCTAssertEqual(
            try split("{\"batch\":[ {\"a\":[1,{\"b\":\"],}\\\"\"}]} , 2,\"x,\\\\\" ,[[]] ,null ]}"),
            ["{\"a\":[1,{\"b\":\"],}\\\"\"}]}", "2", "\"x,\\\\\"", "[[]]", "null"])
    }

    func testSeededGeneratorIsStable() {
        var a = SplitMix64(seed: 7)
        var b = SplitMix64(seed: 7)
        for _ in 0..<100 { XCTAssertEqual(a.next(), b.next()) }
        var c = SplitMix64(seed: 7)
        for _ in 0..<1000 {
            let u = c.nextUnit()
            XCTAssertTrue(u >= 0 && u < 1)
        }
    }

    func testFailFirstAndDownTakePrecedence() {
        let injector = FaultInjector(
            FaultConfiguration(failureStatus: 408, down: DownWindow(start: .seconds(10), duration: .seconds(5)), failFirst: 1))
        XCTAssertEqual(injector.decide(elapsed: .zero), .fail(408))
        XCTAssertEqual(injector.decide(elapsed: .zero), FaultDecision.none)
        XCTAssertEqual(injector.decide(elapsed: .seconds(12)), .fail(503))
        XCTAssertEqual(injector.decide(elapsed: .seconds(15)), FaultDecision.none)
    }

    func testStoreChoiceByExtension() {
        XCTAssertEqual(CollectorStore.forPath("/tmp/a.sqlite"), .sqlite("/tmp/a.sqlite"))
        XCTAssertEqual(CollectorStore.forPath("/tmp/a.DB"), .sqlite("/tmp/a.DB"))
        XCTAssertEqual(CollectorStore.forPath("/tmp/a.ndjson"), .ndjson("/tmp/a.ndjson"))
    }
}

final class SkimmerTests: XCTestCase {
    private func skim(_ text: String) -> BatchSkimmer.Summary? {
        Array(text.utf8).withUnsafeBufferPointer { BatchSkimmer.skim($0) }
    }

    func testCountsTopLevelBatchElementsOnly() {
        XCTAssertEqual(skim("{\"batch\":[]}"), .init(events: 0, largestEvent: 0))
        XCTAssertEqual(skim(" { \"batch\" : [ ] } "), .init(events: 0, largestEvent: 0))
        XCTAssertEqual(
            skim("{\"batch\":[ {\"a\":[1,{\"b\":\"],}\\\"\"}]} , 2,\"x,\\\\\" ,[[]] ,null ]}")?.events, 5)
        // A "batch" key inside another member, or inside a string, is not the batch.
        XCTAssertEqual(skim("{\"x\":{\"batch\":[1,2]},\"batch\":[3]}")?.events, 1)
        XCTAssertEqual(skim("{\"x\":\"\\\"batch\\\":[1,2]\",\"batch\":[3,4,5]}")?.events, 3)
        XCTAssertEqual(skim("{\"sentAt\":\"t\",\"batch\":[{\"k\":\"\\\\\"},{}]}")?.events, 2)
    }

    func testLargestElementIsMeasured() {
        XCTAssertEqual(skim("{\"batch\":[{\"a\":1},{\"abc\":12345}]}")?.largestEvent, 13)
        // Whitespace around an element is not part of it (as in the validating splitter).
        XCTAssertEqual(skim("{\"batch\":[ {\"abc\":12345} \n, {\"a\":1}\n]}")?.largestEvent, 13)
    }

    func testMissingOrTruncatedBatchIsNil() {
        XCTAssertNil(skim(""))
        XCTAssertNil(skim("[1,2]"))
        XCTAssertNil(skim("{\"batch\":{}}"))
        XCTAssertNil(skim("{\"other\":[1]}"))
        XCTAssertNil(skim("{\"batch\":[1,"))
        XCTAssertNil(skim("{\"batch\":[\"abc"))
    }

    /// Agrees with the validating splitter on generated batches.
    func testAgreesWithSplitterOnGeneratedBodies() throws {
        var rng = SplitMix64(seed: 42)
        let pieces = ["1", "\"a,b]\"", "{\"k\":[1,{\"x\":\"}\"}]}", "\"\\\\\"", "null", "[]", "{\"s\":\"\\\"\"}", " 2 "]
        for _ in 0..<300 {
            let n = Int(rng.next() % 12)
            let elements = (0..<n).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }
            let body = "{\"sentAt\":\"x\",\"batch\":[" + elements.joined(separator: ",") + "],\"z\":{}}"
            let bytes = Array(body.utf8)
            let expected = try bytes.withUnsafeBufferPointer { b -> Int in
                let layout = try ObjectLayout.scanDocument(b)
                return BatchSplitter.elements(b, array: try XCTUnwrap(layout.member("batch", in: b)).value).count
            }
            XCTAssertEqual(skim(body)?.events, expected, body)
        }
    }
}
