import JSONCore
import Testing

/// The trusting skim (`skipValueTrusting`, `skipArrayTrusting`), which the request-body check,
/// the collector's batch splitter and the disk-queue snapshot reader walk JSON with: on valid
/// JSON it finds the same values the validating scanner does; cut short, it says so.
struct TrustingSkimTests {
    /// Each element's range, or nil when the skim fails.
    static func elements(_ text: String) -> [String]? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer -> [String]? in
            var scanner = JSONScanner(buffer)
            var found: [String] = []
            let closed = scanner.skipArrayTrusting { found.append(String(decoding: buffer[$0], as: UTF8.self)) }
            return closed ? found : nil
        }
    }

    /// Random valid arrays: every element the skim finds ends where the validating scanner ends it.
    @Test func findsTheElementsTheValidatingScannerFinds() throws {
        var generator = JSONTextGenerator(seed: 20_261_128)
        for _ in 0..<300 {
            let values = (0..<Int(generator.rng.next() % 6)).map { _ in generator.valueText(depth: 3) }
            let text = "[" + values.map { generator.whitespace() + $0 + generator.whitespace() }.joined(separator: ",") + "]"
            let found = try #require(Self.elements(text), "\(text)")
            #expect(found.count == values.count, "\(text)")
            for (skimmed, value) in zip(found, values) {
                let trimmed = String(decoding: Array(value.utf8).trimmingJSONWhitespace(), as: UTF8.self)
                #expect(skimmed == trimmed)
                let bytes = Array(skimmed.utf8)
                let end = try bytes.withUnsafeBufferPointer { buffer in
                    var scanner = JSONScanner(buffer)
                    _ = try scanner.scanValue()
                    return scanner.offset
                }
                #expect(end == bytes.count, "\(skimmed)")
            }
        }
    }

    /// Quotes and brackets inside strings, escaped quotes, nesting, and whitespace around.
    @Test func jumpsOverStringsAndNesting() {
        #expect(
            Self.elements(#"[ "a\"]" , "{[" ,{"k":["]",{}]}, 1.5e3,true ]"#) == [
                #""a\"]""#, #""{[""#, #"{"k":["]",{}]}"#, "1.5e3", "true",
            ])
        #expect(Self.elements("[]") == [])
        #expect(Self.elements("[ \n ]") == [])
        #expect(Self.elements("[1,]") == ["1"], "a comma before the ] is let pass")
    }

    /// Every proper prefix of an array fails: the skim never reports a value it did not see close.
    @Test func aCutShortArrayFails() {
        let text = #"[{"a":"x\"y","b":[1,2]},"s",-3,null]"#
        let bytes = Array(text.utf8)
        for cut in 0..<bytes.count {
            #expect(Self.elements(String(decoding: bytes[..<cut], as: UTF8.self)) == nil, "cut at \(cut)")
        }
        #expect(Self.elements("[1 2]") == nil, "two elements without a comma")
    }

    /// `skipStringTrusting` returns the content between the quotes and does not judge escapes.
    @Test func skipsAStringWithoutValidatingIt() {
        let bytes = Array(#""a\qb" rest"#.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(buffer)
            let content = scanner.skipStringTrusting()
            #expect(content.map { String(decoding: buffer[$0], as: UTF8.self) } == #"a\qb"#)
            #expect(scanner.offset == 6)
            let first = scanner.consume(UInt8(ascii: " "))
            let second = scanner.consume(UInt8(ascii: " "))
            #expect(first)
            #expect(!second)
        }
    }
}

extension Array where Element == UInt8 {
    /// The bytes without JSON whitespace at either end.
    fileprivate func trimmingJSONWhitespace() -> ArraySlice<UInt8> {
        var slice = self[...]
        while let first = slice.first, first.isJSONWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isJSONWhitespace { slice = slice.dropLast() }
        return slice
    }
}
