import Collector
import JSONCore
import Testing

/// The collector's split of a validated `batch` array into its elements.
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

    @Test(
        arguments: [
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
}
