import JSONCore
import Testing

/// Hand-picked valid and invalid documents for the scanner, the parser and the layout scan.
struct ScannerTests {
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

    /// The error `body` throws (nil, recording an issue, when it throws none or another kind).
    static func jsonError(
        _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) -> JSONError? {
        do {
            try body()
            Issue.record("no error thrown", sourceLocation: sourceLocation)
        } catch let error as JSONError {
            return error
        } catch {
            Issue.record("not a JSONError: \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    @Test(arguments: valid)
    func validDocument(text: String) throws {
        let bytes = Array(text.utf8)
        #expect((try? bytes.withUnsafeBufferPointer { try JSONScanner.validate($0) }) != nil, "\(text.debugDescription)")
        #expect((try? JSONParser.parse(bytes)) != nil, "\(text.debugDescription)")
    }

    @Test(arguments: invalid)
    func invalidDocument(text: String) {
        let bytes = Array(text.utf8)
        #expect(Self.jsonError { _ = try bytes.withUnsafeBufferPointer { try JSONScanner.validate($0) } } != nil, "\(text.debugDescription)")
        #expect(Self.jsonError { _ = try JSONParser.parse(bytes) } != nil, "\(text.debugDescription)")
        #expect(Self.jsonError { _ = try bytes.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0) } } != nil, "\(text.debugDescription)")
    }

    @Test(
        arguments: [
            [0xFF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xC3],
        ] as [[UInt8]])
    func invalidUTF8IsReportedAsSuch(bad: [UInt8]) {
        let bytes = Array("\"a".utf8) + bad + Array("b\"".utf8)
        let error = Self.jsonError { _ = try JSONParser.parse(bytes) }
        #expect(error?.kind == .invalidUTF8, "\(bad)")
        #expect(error?.offset == 2, "\(bad)")
    }

    @Test func longestValidUTF8SequencesPass() throws {
        let good: [UInt8] = Array("\"".utf8) + [0x7F, 0xDF, 0xBF, 0xEF, 0xBF, 0xBF, 0xF4, 0x8F, 0xBF, 0xBF] + Array("\"".utf8)
        #expect(try JSONParser.parse(good) == .string("\u{7F}\u{7FF}\u{FFFF}\u{10FFFF}"))
    }

    @Test(arguments: [("[", "]"), ("{\"k\":", "}")])
    func nestingLimitIsExactlyMaximumDepth(open: String, close: String) {
        let limit = JSONScanner.maximumDepth
        let ok = Array((String(repeating: open, count: limit) + "1" + String(repeating: close, count: limit)).utf8)
        let deep = Array((String(repeating: open, count: limit + 1) + "1" + String(repeating: close, count: limit + 1)).utf8)
        #expect((try? ok.withUnsafeBufferPointer { try JSONScanner.validate($0) }) != nil)
        #expect((try? JSONParser.parse(ok)) != nil)
        #expect(Self.jsonError { _ = try deep.withUnsafeBufferPointer { try JSONScanner.validate($0) } }?.kind == .tooDeep)
        #expect(Self.jsonError { _ = try JSONParser.parse(deep) }?.kind == .tooDeep)
    }

    @Test func nestingLimitCountsTheLayoutsObject() {
        let limit = JSONScanner.maximumDepth
        let objectOK = Array(("{\"k\":" + String(repeating: "[", count: limit - 1) + String(repeating: "]", count: limit - 1) + "}").utf8)
        let objectDeep = Array(("{\"k\":" + String(repeating: "[", count: limit) + String(repeating: "]", count: limit) + "}").utf8)
        #expect((try? objectOK.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0) }) != nil)
        #expect(Self.jsonError { _ = try objectDeep.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0) } }?.kind == .tooDeep)
    }

    @Test(arguments: [("[1,]", 3), ("{\"a\":01}", 5), ("{} x", 3)])
    func errorOffsetsPointAtTheProblem(text: String, offset: Int) {
        #expect(Self.jsonError { _ = try JSONParser.parse(Array(text.utf8)) }?.offset == offset, "\(text)")
    }

    @Test(arguments: ["[]", "1", "\"s\"", "null", " true "])
    func layoutRejectsNonObjectsAsUnexpectedType(text: String) {
        let bytes = Array(text.utf8)
        #expect(Self.jsonError { _ = try bytes.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0) } }?.kind == .unexpectedType, "\(text)")
    }

    @Test func emptyBufferIsASyntaxError() {
        let empty: [UInt8] = []
        #expect(Self.jsonError { _ = try empty.withUnsafeBufferPointer { try JSONScanner.validate($0) } }?.kind == .syntax)
        #expect(Self.jsonError { _ = try ObjectLayout.scanDocument(UnsafeBufferPointer<UInt8>(start: nil, count: 0)) }?.kind == .syntax)
        #expect(Self.jsonError { _ = try JSONParser.parse(empty) } != nil)
    }

    /// The string scanner reads eight bytes at a time; put every kind of special byte at every
    /// position around those word boundaries.
    @Test(arguments: [0, 1, 7, 8, 9, 15, 16, 17, 31])
    func specialBytesAtEveryPositionInLongStrings(length: Int) throws {
        let cases: [(insert: [UInt8], expected: String?)] = [
            (Array("\\n".utf8), "\n"), (Array("\\\"".utf8), "\""), (Array("\\\\".utf8), "\\"),
            ([0xC3, 0xA9], "é"), ([0xF0, 0x9F, 0x98, 0x80], "😀"), ([0x7F], "\u{7F}"), ([0x20], " "), ([0x7E], "~"),
            ([0x1F], nil), ([0x00], nil), ([0x0A], nil), ([0xFF], nil), ([0xC3], nil), ([0xED, 0xA0, 0x80], nil),
        ]
        for k in 0...length {
            let before = String(repeating: "a", count: k)
            let after = String(repeating: "b", count: length - k)
            for (insert, expected) in cases {
                let bytes = Array("\"\(before)".utf8) + insert + Array("\(after)\"".utf8)
                if let expected {
                    #expect((try? JSONParser.parse(bytes)) == .string(before + expected + after), "\(insert) at \(k) of \(length)")
                } else {
                    let error = Self.jsonError { _ = try JSONParser.parse(bytes) }
                    #expect(error?.offset == 1 + k, "error offset for \(insert) at \(k) of \(length)")
                }
            }
            // An unterminated string of this length.
            #expect((try? JSONParser.parse(Array("\"\(before)\(after)".utf8))) == nil)
        }
    }

    /// Keys and string values followed by more of the document, where the scanner's inlined
    /// short-string path reads the 16 bytes after the opening quote: every kind of special byte
    /// at every position around and past those 16, through the layout scan and `validate`.
    @Test(arguments: [0, 1, 7, 8, 9, 14, 15, 16, 17])
    func specialBytesInKeysAndValuesFollowedByMore(length: Int) throws {
        let cases: [(insert: [UInt8], expected: String?)] = [
            (Array("\\n".utf8), "\n"), (Array("\\\"".utf8), "\""), ([0xC3, 0xA9], "é"), ([0x7F], "\u{7F}"), ([0x7E], "~"),
            (Array("\"".utf8), nil), ([0x1F], nil), ([0x00], nil), ([0xFF], nil), ([0xC3], nil),
        ]
        let rest = Array(",\"padding\":\"0123456789abcdef\"}".utf8)
        for k in 0...length {
            let before = String(repeating: "a", count: k)
            let after = String(repeating: "b", count: length - k)
            for (insert, expected) in cases {
                let string = Array("\"\(before)".utf8) + insert + Array("\(after)\"".utf8)
                let asValue = Array("{\"k\":".utf8) + string + rest
                let asKey = Array("{".utf8) + string + Array(":1".utf8) + rest
                for (doc, prefix) in [(asValue, 5), (asKey, 1)] {
                    let layout = try? doc.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0) }
                    let valid = (try? doc.withUnsafeBufferPointer { try JSONScanner.validate($0) }) != nil
                    guard let expected else {
                        // A quote inside ends the string early, so the document's shape breaks.
                        #expect(layout == nil && !valid, "\(insert) at \(k) of \(length)")
                        if insert != Array("\"".utf8) {
                            let error = Self.jsonError { _ = try doc.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0) } }
                            #expect(error?.offset == prefix + 1 + k, "error offset for \(insert) at \(k) of \(length)")
                        }
                        continue
                    }
                    let found = try #require(layout, "\(insert) at \(k) of \(length)")
                    #expect(valid)
                    try doc.withUnsafeBufferPointer { buf in
                        let text = prefix == 5 ? found.string("k", in: buf) : found.keyString(found.members[0], in: buf)
                        #expect(text == before + expected + after, "\(insert) at \(k) of \(length)")
                        #expect(found.members.count == 2)
                    }
                }
            }
        }
    }
}
