import InputShapes
import JSONCore
import TestSupport
import Testing

/// Streaming the elements of a file that is one JSON array.
@Suite struct JSONArrayReaderTests {
    /// Every element of `bytes`, read from `position` through `source`.
    static func elements(
        _ source: ByteSource, position: JSONArrayPosition = .fileStart, limit: Int = 1 << 20, readerPiece: Int = 64 << 10
    ) throws -> [JSONArrayElement] {
        let reader = JSONArrayReader(position: position, maximumElementBytes: limit, pieceSize: readerPiece)
        var out: [JSONArrayElement] = []
        while let element = try reader.next(pull: source.pull) { out.append(element) }
        return out
    }

    /// The elements of `text` as text.
    static func elements(_ text: String, pieceSize: Int = .max) throws -> [String] {
        try elements(ByteSource(utf8(text), pieceSize: pieceSize)).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// Brackets, commas and quotes inside strings, escapes, nesting, every kind of value.
    static let tricky = """
        [{"a":"],[}{\\"","b":[1,[2,{"c":"]"}]]} , "str,]" ,-1.5e3,true,null,[],{},
          [ "x" , {"y" :[ ]} ],"\\\\",{"u":"\\u00e9\\ud83d\\ude00"}]
        """

    @Test func nestedBracketsAndCommasInStrings() throws {
        let got = try Self.elements(Self.tricky)
        #expect(
            got == [
                #"{"a":"],[}{\"","b":[1,[2,{"c":"]"}]]}"#, #""str,]""#, "-1.5e3", "true", "null", "[]", "{}",
                #"[ "x" , {"y" :[ ]} ]"#, #""\\""#, #"{"u":"\u00e9\ud83d\ude00"}"#,
            ], "\(got)")
    }

    @Test func indexesKindsAndRanges() throws {
        let bytes = utf8(" \n[\n  {\"a\": 1},\n  2\n]\n ")
        let got = try Self.elements(ByteSource(bytes))
        #expect(got.map(\.index) == [1, 2])
        #expect(got.map(\.kind) == [.object, .number])
        #expect(got.map(\.start) == [6, 18] && got.map(\.end) == [14, 19], "\(got.map { ($0.start, $0.end) })")
        for element in got { #expect(Array(bytes[element.start..<element.end]) == element.bytes) }
    }

    @Test(arguments: ["[]", " [ ] ", "\u{FEFF}[]\n", "[\n\n]"])
    func emptyArray(text: String) throws {
        #expect(try Self.elements(text).isEmpty)
    }

    /// A pretty-printed array (as `JSONSerialization` or `jq` writes it), element by element.
    @Test func prettyPrinted() throws {
        let text = """
            [
              {
                "type": "track",
                "event": "Played [live]",
                "properties": {
                  "tags": [
                    "a",
                    "b, c"
                  ]
                }
              },
              {
                "type": "identify"
              }
            ]

            """
        let got = try Self.elements(ByteSource(utf8(text)))
        #expect(got.count == 2)
        #expect(try JSONValue(parsing: got[0].bytes).objectValue?["event"] == "Played [live]")
        #expect(try JSONValue(parsing: got[1].bytes) == ["type": "identify"])
    }

    /// Broken files, each an error at the byte at fault.
    static let broken: [(String, JSONArrayError)] = [
        ("[1,2] x", .trailingData(offset: 6)),
        ("[1,2]]", .trailingData(offset: 5)),
        ("[1 2]", .syntax(offset: 3, message: "expected ',' or ']' after element 1")),
        ("[{\"a\":1}{\"b\":2}]", .syntax(offset: 8, message: "expected ',' or ']' after element 1")),
        ("[1,]", .syntax(offset: 3, message: "expected an element after ',', found ']'")),
        ("{\"a\":1}", .syntax(offset: 0, message: "expected '[' (the file must be one JSON array)")),
        ("", .truncated(offset: 0, message: "before the array's '['")),
        ("[1,", .truncated(offset: 3, message: "inside the array, where element 2 should be")),
        ("[1", .truncated(offset: 2, message: "inside the array, after element 1 (no ']')")),
        ("[{\"a\":[1,2]", .truncated(offset: 11, message: "inside element 1, which starts at byte 1")),
        ("[\"abc", .truncated(offset: 5, message: "inside element 1, which starts at byte 1")),
        ("[1,{\"a\":]}]", .invalidElement(index: 2, offset: 8, message: "unexpected ']'")),
        ("[1,{\"a\" 1}]", .invalidElement(index: 2, offset: 8, message: "expected ':' after object key")),
        ("[1,tru]", .invalidElement(index: 2, offset: 3, message: "invalid literal")),
        ("[01]", .invalidElement(index: 1, offset: 1, message: "leading zero in number")),
    ]

    @Test(arguments: broken)
    func brokenArrays(text: String, expected: JSONArrayError) throws {
        for piece in [Int.max, 1] {
            #expect(throws: expected, "\(text.debugDescription) in pieces of \(piece)") {
                try Self.elements(ByteSource(utf8(text), pieceSize: piece))
            }
        }
    }

    @Test func elementsLargerThanTheLimitAreRefused() throws {
        let big = "{\"s\":\"" + String(repeating: "x", count: 200) + "\"}"
        let text = "[1, " + big + ", 3]"
        #expect(throws: JSONArrayError.elementTooLarge(index: 2, offset: 4, limit: 100)) {
            try Self.elements(ByteSource(utf8(text), pieceSize: 7), limit: 100, readerPiece: 16)
        }
        #expect(try Self.elements(ByteSource(utf8(text)), limit: big.utf8.count).count == 3)
    }

    /// A generated array of varied events, its text, and its elements as read whole.
    static func generated(count: Int, seed: UInt64) throws -> (bytes: [UInt8], elements: [JSONArrayElement]) {
        var random = SeededRandom(seed: seed)
        var text = random.chance(0.5) ? "[" : " \n[\n  "
        for i in 0..<count {
            if i > 0 { text += random.pick([",", " ,\n  ", ",\n", "\t,\t"]) }
            text += random.pick([
                "{\"type\":\"track\",\"event\":\"E\(i)\",\"properties\":{\"s\":\"a],b[\\\"\",\"n\":[\(i),{}]}}",
                "{\n    \"i\": \(i),\n    \"nested\": [[[]], {\"k\": \"}\"}]\n  }",
                "\"s\(i)\"", "\(i)", "[\(i), \"]\"]", "null",
            ])
        }
        text += random.pick(["]", "\n]\n", "  ]  "])
        let bytes = utf8(text)
        return (bytes, try elements(ByteSource(bytes)))
    }

    /// Pieces of 1 byte, of every size up to 64 and random sizes give the same elements.
    @Test(arguments: [1, 2, 3, 5, 8, 13, 64])
    func piecesOfEverySize(pieceSize: Int) throws {
        let (bytes, whole) = try Self.generated(count: 60, seed: 7)
        #expect(whole.count == 60)
        #expect(try Self.elements(ByteSource(bytes, pieceSize: pieceSize), readerPiece: 16) == whole)
        for seed in 1...5 as ClosedRange<UInt64> {
            let source = ByteSource(bytes, randomPiecesUpTo: pieceSize * 10, seed: seed)
            #expect(try Self.elements(source, readerPiece: 32) == whole, "seed \(seed)")
        }
    }

    /// Resuming at any element's start (or end) with its index gives what reading from the
    /// start gives from there on.
    @Test func resumesAtAnElement() throws {
        let (bytes, whole) = try Self.generated(count: 25, seed: 11)
        for element in whole {
            let k = element.index - 1
            let atStart = try Self.elements(
                ByteSource(bytes, from: element.start, pieceSize: 5),
                position: .elementStart(offset: element.start, index: element.index))
            #expect(atStart == Array(whole[k...]), "at element \(element.index)")
            let after = try Self.elements(
                ByteSource(bytes, from: element.end, pieceSize: 3),
                position: .afterElement(offset: element.end, index: element.index))
            #expect(after == Array(whole[(k + 1)...]), "after element \(element.index)")
        }
    }
}
