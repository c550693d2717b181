import Foundation
import JSONCore
import Testing

/// Where JSONCore deliberately differs from Foundation's `JSONSerialization` (on Linux), pinned
/// down so the differential test's exclusions stay honest. JSONCore follows RFC 8259 strictly.
struct DocumentedDifferenceTests {
    func parse(_ bytes: [UInt8]) -> JSONValue? { try? JSONParser.parse(bytes) }

    @Test(arguments: [#"{"a":1,}"#, "[1,]", #"{"a":[1,2,],"b":{}}"#])
    func trailingCommasAreRejected(text: String) {
        #expect(parse(Array(text.utf8)) == nil, "\(text)")
    }

    @Test func trailingCommaHelperLeavesStringsAlone() {
        #expect(
            FoundationComparison.withoutTrailingCommas(Array(#"{"a":[1, ],"s":",]",}"#.utf8)) == Array(#"{"a":[1 ],"s":",]"}"#.utf8),
            "the helper leaves commas inside strings alone")
    }

    @Test func numbersBeyondDoubleRangeAreKeptAsText() throws {
        let value = try #require(parse(Array("[1e400,-1E+999,1e-400]".utf8)))
        #expect(value.encodedString == "[1e400,-1E+999,1e-400]")
        guard case .number(let big) = value.arrayValue?.first else {
            Issue.record("number expected")
            return
        }
        #expect(big.doubleValue == .infinity)
        #expect(FoundationComparison.hasNonFiniteNumber(value))
    }

    @Test func byteOrderMarkAndOtherEncodingsAreRejected() {
        #expect(parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == nil, "UTF-8 BOM before the document")
        #expect(parse([0x00, 0x7B, 0x00, 0x7D]) == nil, "UTF-16BE")
        #expect(parse([0x7B, 0x00, 0x7D, 0x00]) == nil, "UTF-16LE")
        #expect(!(FoundationComparison.foundationReadsAsUTF8([0xEF, 0xBB, 0xBF, 0x31])))
        #expect(!(FoundationComparison.foundationReadsAsUTF8([0x31, 0x00])))
        #expect(FoundationComparison.foundationReadsAsUTF8(Array("{\"a\":\"\u{0}\"}".utf8)))
    }

    @Test func leadingFEFFInsideAStringIsKept() throws {
        let value = try #require(parse(Array("{\"\u{FEFF}k\":\"\u{FEFF}v\"}".utf8)))
        #expect(value.objectValue?.keys == ["\u{FEFF}k"])
        #expect(value.objectValue?["\u{FEFF}k"]?.stringValue?.unicodeScalars.first == "\u{FEFF}")
        #expect(FoundationComparison.foundationText(Array("{\"\u{FEFF}k\":\"\u{FEFF}v\"}".utf8)) == Array(#"{"k":"v"}"#.utf8))
    }

    @Test func numbersAreReadCorrectlyRounded() throws {
        // Foundation on Linux reads this as 5.905375365533201; JSONCore's doubleValue is exact.
        let value = try #require(parse(Array("59053753655332E-13".utf8)))
        guard case .number(let n) = value else {
            Issue.record("number expected")
            return
        }
        #expect(n.doubleValue == 5.9053753655332)
        #expect(FoundationComparison.difference(value, NSNumber(value: 5.905375365533201)) == nil, "within the documented 1e-13 relative tolerance")
        #expect(FoundationComparison.difference(value, NSNumber(value: 5.9053753655)) != nil, "but a real difference is still caught")
    }
}
