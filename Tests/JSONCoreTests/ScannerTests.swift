import JSONCore
import XCTest

/// Hand-picked valid and invalid documents for the scanner, the parser and the layout scan.
final class ScannerTests: XCTestCase {
    static let valid: [String] = [
        "{}", "[]", "0", "-0", "1.5", "-0.0e-0", "1E+2", "1e-2", "123456789012345678901234567890", "true", "false",
        "null", "\"\"", " \t\r\n{ \"a\" : [ 1 , 2 ] } \n", "{\"a\":{\"b\":{\"c\":[[],{}]}}}", "\"\\u0000\"",
        "\"\\uD83D\\uDE00\"", "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"", "\"é中😀\"", "\"\u{7F}\"", "[1,\"a\",null,true,{}]",
        "{\"a\":1,\"a\":2}",
    ]

    static let invalid: [String] = [
        "", " ", "{", "}", "[", "[1,]", "{\"a\":1,}", "{,}", "[,1]", "01", "-01", "1.", ".5", "-", "+1", "1e", "1e+",
        "0x10", "NaN", "Infinity", "-Infinity", "tru", "nul", "True", "{'a':1}", "{a:1}", "{\"a\" 1}", "{\"a\":}",
        "[1 2]", "{} {}", "1 2", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\ud800\"", "\"\\udc00\"",
        "\"\\ud800\\u0041\"", "\"\\ud800\\ud800\"", "\"a\nb\"", "\"\t\"", "[1]x", "/*c*/1", "{\"a\":1}//",
        "\u{FEFF}{}", "[\u{00A0}1]",
    ]

    func testValidDocuments() throws {
        for text in Self.valid {
            let bytes = Array(text.utf8)
            XCTAssertNoThrow(try bytes.withUnsafeBufferPointer { try JSONScanner.validate($0) }, text.debugDescription)
            XCTAssertNoThrow(try JSONParser.parse(bytes), text.debugDescription)
        }
    }

    func testInvalidDocuments() {
        for text in Self.invalid {
            let bytes = Array(text.utf8)
            XCTAssertThrowsError(try bytes.withUnsafeBufferPointer { try JSONScanner.validate($0) }, text.debugDescription)
            XCTAssertThrowsError(try JSONParser.parse(bytes), text.debugDescription)
            XCTAssertThrowsError(try bytes.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0) }, text.debugDescription)
        }
    }

    func testInvalidUTF8IsReportedAsSuch() {
        let cases: [[UInt8]] = [
            [0xFF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xC3],
        ]
        for bad in cases {
            let bytes = Array("\"a".utf8) + bad + Array("b\"".utf8)
            XCTAssertThrowsError(try JSONParser.parse(bytes), "\(bad)") { error in
                XCTAssertEqual((error as? JSONError)?.kind, .invalidUTF8, "\(bad)")
                XCTAssertEqual((error as? JSONError)?.offset, 2, "\(bad)")
            }
        }
        // The longest valid sequences of each length pass.
        let good: [UInt8] = Array("\"".utf8) + [0x7F, 0xDF, 0xBF, 0xEF, 0xBF, 0xBF, 0xF4, 0x8F, 0xBF, 0xBF] + Array("\"".utf8)
        XCTAssertEqual(try JSONParser.parse(good), .string("\u{7F}\u{7FF}\u{FFFF}\u{10FFFF}"))
    }

    func testNestingLimitIsExactlyMaximumDepth() {
        let limit = JSONScanner.maximumDepth
        for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
            let ok = Array((String(repeating: open, count: limit) + "1" + String(repeating: close, count: limit)).utf8)
            let deep = Array((String(repeating: open, count: limit + 1) + "1" + String(repeating: close, count: limit + 1)).utf8)
            XCTAssertNoThrow(try ok.withUnsafeBufferPointer { try JSONScanner.validate($0) })
            XCTAssertNoThrow(try JSONParser.parse(ok))
            for attempt in [
                { try deep.withUnsafeBufferPointer { _ = try JSONScanner.validate($0) } },
                { _ = try JSONParser.parse(deep) },
            ] as [() throws -> Void] {
                XCTAssertThrowsError(try attempt()) { XCTAssertEqual(($0 as? JSONError)?.kind, .tooDeep) }
            }
        }
        let objectOK = Array(("{\"k\":" + String(repeating: "[", count: limit - 1) + String(repeating: "]", count: limit - 1) + "}").utf8)
        let objectDeep = Array(("{\"k\":" + String(repeating: "[", count: limit) + String(repeating: "]", count: limit) + "}").utf8)
        XCTAssertNoThrow(try objectOK.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0) })
        XCTAssertThrowsError(try objectDeep.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0) }) {
            XCTAssertEqual(($0 as? JSONError)?.kind, .tooDeep)
        }
    }

    func testErrorOffsetsPointAtTheProblem() {
        XCTAssertThrowsError(try JSONParser.parse(Array("[1,]".utf8))) { XCTAssertEqual(($0 as? JSONError)?.offset, 3) }
        XCTAssertThrowsError(try JSONParser.parse(Array("{\"a\":01}".utf8))) { XCTAssertEqual(($0 as? JSONError)?.offset, 5) }
        XCTAssertThrowsError(try JSONParser.parse(Array("{} x".utf8))) { XCTAssertEqual(($0 as? JSONError)?.offset, 3) }
    }

    func testLayoutRejectsNonObjectsAsUnexpectedType() {
        for text in ["[]", "1", "\"s\"", "null", " true "] {
            XCTAssertThrowsError(try Array(text.utf8).withUnsafeBufferPointer { try ObjectLayout.scanDocument($0) }) {
                XCTAssertEqual(($0 as? JSONError)?.kind, .unexpectedType, text)
            }
        }
    }

    func testEmptyBufferIsASyntaxError() {
        let empty: [UInt8] = []
        XCTAssertThrowsError(try empty.withUnsafeBufferPointer { try JSONScanner.validate($0) }) {
            XCTAssertEqual(($0 as? JSONError)?.kind, .syntax)
        }
        XCTAssertThrowsError(try ObjectLayout.scanDocument(UnsafeBufferPointer<UInt8>(start: nil, count: 0))) {
            XCTAssertEqual(($0 as? JSONError)?.kind, .syntax)
        }
        XCTAssertThrowsError(try JSONParser.parse(empty))
    }

    /// The string scanner reads eight bytes at a time; put every kind of special byte at every
    /// position around those word boundaries.
    func testSpecialBytesAtEveryPositionInLongStrings() throws {
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 31] {
            for k in 0...length {
                let before = String(repeating: "a", count: k)
                let after = String(repeating: "b", count: length - k)
                let cases: [(insert: [UInt8], expected: String?)] = [
                    (Array("\\n".utf8), "\n"), (Array("\\\"".utf8), "\""), (Array("\\\\".utf8), "\\"),
                    ([0xC3, 0xA9], "é"), ([0xF0, 0x9F, 0x98, 0x80], "😀"), ([0x7F], "\u{7F}"), ([0x20], " "), ([0x7E], "~"),
                    ([0x1F], nil), ([0x00], nil), ([0x0A], nil), ([0xFF], nil), ([0xC3], nil), ([0xED, 0xA0, 0x80], nil),
                ]
                for (insert, expected) in cases {
                    let bytes = Array("\"\(before)".utf8) + insert + Array("\(after)\"".utf8)
                    let got = try? JSONParser.parse(bytes)
                    if let expected {
                        XCTAssertEqual(got, .string(before + expected + after), "\(insert) at \(k) of \(length)")
                    } else {
                        XCTAssertNil(got, "\(insert) at \(k) of \(length)")
                        XCTAssertThrowsError(try JSONParser.parse(bytes)) { error in
                            XCTAssertEqual((error as? JSONError)?.offset, 1 + k, "error offset for \(insert) at \(k)")
                        }
                    }
                }
                // An unterminated string of this length.
                XCTAssertNil(try? JSONParser.parse(Array("\"\(before)\(after)".utf8)))
            }
        }
    }
}
