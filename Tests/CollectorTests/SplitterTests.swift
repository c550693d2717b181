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
