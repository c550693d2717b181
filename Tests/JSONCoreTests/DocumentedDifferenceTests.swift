import Foundation
import JSONCore
import XCTest

/// Where JSONCore deliberately differs from Foundation's `JSONSerialization` (on Linux), pinned
/// down so the differential test's exclusions stay honest. JSONCore follows RFC 8259 strictly.
final class DocumentedDifferenceTests: XCTestCase {
    func parse(_ bytes: [UInt8]) -> JSONValue? { try? JSONParser.parse(bytes) }

    func testTrailingCommasAreRejected() {
        for text in [#"{"a":1,}"#, "[1,]", #"{"a":[1,2,],"b":{}}"#] {
            XCTAssertNil(parse(Array(text.utf8)), text)
        }
        XCTAssertEqual(FoundationComparison.withoutTrailingCommas(Array(#"{"a":[1, ],"s":",]",}"#.utf8)),
            Array(#"{"a":[1 ],"s":",]"}"#.utf8), "the helper leaves commas inside strings alone")
    }

    func testNumbersBeyondDoubleRangeAreKeptAsText() throws {
        let value = try XCTUnwrap(parse(Array("[1e400,-1E+999,1e-400]".utf8)))
        XCTAssertEqual(value.encodedString, "[1e400,-1E+999,1e-400]")
        guard case .number(let big) = value.arrayValue?.first else { return XCTFail("number expected") }
        XCTAssertEqual(big.doubleValue, .infinity)
        XCTAssertTrue(FoundationComparison.hasNonFiniteNumber(value))
    }

    func testByteOrderMarkAndOtherEncodingsAreRejected() {
        XCTAssertNil(parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8)), "UTF-8 BOM before the document")
        XCTAssertNil(parse([0x00, 0x7B, 0x00, 0x7D]), "UTF-16BE")
        XCTAssertNil(parse([0x7B, 0x00, 0x7D, 0x00]), "UTF-16LE")
        XCTAssertFalse(FoundationComparison.foundationReadsAsUTF8([0xEF, 0xBB, 0xBF, 0x31]))
        XCTAssertFalse(FoundationComparison.foundationReadsAsUTF8([0x31, 0x00]))
        XCTAssertTrue(FoundationComparison.foundationReadsAsUTF8(Array("{\"a\":\"\u{0}\"}".utf8)))
    }

    func testLeadingFEFFInsideAStringIsKept() throws {
        let value = try XCTUnwrap(parse(Array("{\"\u{FEFF}k\":\"\u{FEFF}v\"}".utf8)))
        XCTAssertEqual(value.objectValue?.keys, ["\u{FEFF}k"])
        XCTAssertEqual(value.objectValue?["\u{FEFF}k"]?.stringValue?.unicodeScalars.first, "\u{FEFF}")
        XCTAssertEqual(FoundationComparison.foundationText(Array("{\"\u{FEFF}k\":\"\u{FEFF}v\"}".utf8)), Array(#"{"k":"v"}"#.utf8))
    }

    func testNumbersAreReadCorrectlyRounded() throws {
        // Foundation on Linux reads this as 5.905375365533201; JSONCore's doubleValue is exact.
        let value = try XCTUnwrap(parse(Array("59053753655332E-13".utf8)))
        guard case .number(let n) = value else { return XCTFail("number expected") }
        XCTAssertEqual(n.doubleValue, 5.9053753655332)
        XCTAssertNil(FoundationComparison.difference(value, NSNumber(value: 5.905375365533201)),
            "within the documented 1e-13 relative tolerance")
        XCTAssertNotNil(FoundationComparison.difference(value, NSNumber(value: 5.9053753655)),
            "but a real difference is still caught")
    }
}
