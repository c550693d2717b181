import InputShapes
import Testing

/// Splitting CSV and TSV into records (RFC 4180), with numbers and offsets, in pieces of any size.
@Suite struct CSVRecordReaderTests {
    /// Every record of `bytes`, read from `start` in pieces of `pieceSize`.
    static func records(
        _ bytes: [UInt8], dialect: CSVDialect = .csv, pieceSize: Int = .max, start: Int = 0, number: Int = 1,
        readerPiece: Int = 64 << 10, limit: Int = 1 << 20
    ) throws -> [CSVRecord] {
        let source = ByteSource(bytes, from: start, pieceSize: pieceSize)
        let reader = CSVRecordReader(
            dialect: dialect, startOffset: start, firstRecordNumber: number, maximumRecordBytes: limit, pieceSize: readerPiece)
        var out: [CSVRecord] = []
        while let record = try reader.next(pull: source.pull) { out.append(record) }
        return out
    }

    /// The fields of every record of `text`.
    static func fields(_ text: String, dialect: CSVDialect = .csv, pieceSize: Int = .max) throws -> [[String]] {
        try records(utf8(text), dialect: dialect, pieceSize: pieceSize).map(\.fields)
    }

    /// Quoting edge cases, each read whole and one byte at a time.
    static let quotingCases: [(String, [[String]])] = [
        ("a,b,c\n", [["a", "b", "c"]]),
        ("\"a,b\",c\n", [["a,b", "c"]]),
        ("\"say \"\"hi\"\"\",x\n", [["say \"hi\"", "x"]]),
        ("\"\"\"\"\n", [["\""]]),  // one quote
        ("\"\",\"\"\n", [["", ""]]),  // two empty quoted fields
        ("a,,b,\n", [["a", "", "b", ""]]),  // empty fields, one at the end
        (",\n", [["", ""]]),
        ("5\" screen,x\n", [["5\" screen", "x"]]),  // a quote inside an unquoted field is kept
        ("\"a\nb\",c\n", [["a\nb", "c"]]),  // an LF inside quotes
        ("\"a\r\nb\",c\r\n", [["a\r\nb", "c"]]),  // a CRLF inside quotes
        ("\"x,\"\"y\"\"\nz\"\n", [["x,\"y\"\nz"]]),
        ("a,b", [["a", "b"]]),  // last record without a line break
        ("a,\"b\"", [["a", "b"]]),
        ("a\r\nb\r\n", [["a"], ["b"]]),  // CRLF
        ("a\rb\r", [["a"], ["b"]]),  // lone CRs
        ("a\n\nb\n\r\n\n", [["a"], ["b"]]),  // blank lines are not records
        ("\u{FEFF}a,b\n1,2\n", [["a", "b"], ["1", "2"]]),  // a byte order mark
        ("é,\"ü\"\n", [["é", "ü"]]),
        ("", []),
    ]

    @Test(arguments: quotingCases)
    func splitsRecords(text: String, expected: [[String]]) throws {
        let whole = try Self.fields(text)
        #expect(whole == expected, "\(text.debugDescription): \(whole)")
        let bytewise = try Self.fields(text, pieceSize: 1)
        #expect(bytewise == expected, "\(text.debugDescription) byte by byte: \(bytewise)")
    }

    @Test func tabSeparated() throws {
        let text = "name\tnote\n\"a\tb\"\tx,y\nc\t\"say \"\"hi\"\"\"\n"
        #expect(try Self.fields(text, dialect: .tsv) == [["name", "note"], ["a\tb", "x,y"], ["c", "say \"hi\""]])
        let plain = CSVDialect(delimiter: 0x09, quoting: false)
        #expect(try Self.fields("a\t\"b\tc\n", dialect: plain) == [["a", "\"b", "c"]])
    }

    @Test func numbersAndOffsets() throws {
        let input = "\u{FEFF}h1,h2\r\n\"x\ny\",1\r\n\r\nlast,2"
        let records = try Self.records(utf8(input))
        #expect(records.map(\.number) == [1, 2, 3])
        #expect(records.map(\.start) == [3, 10, 21], "\(records.map(\.start))")
        #expect(records.map(\.end) == [10, 19, 27], "\(records.map(\.end))")
        let bytes = utf8(input)
        #expect(text(Array(bytes[records[1].start..<records[1].end])) == "\"x\ny\",1\r\n")
    }

    /// Reading from a record's start (or end) with its number gives what reading from the start
    /// gives from there on.
    @Test(arguments: [1, 2, 3, 4, 5])
    func resumesAtARecord(k: Int) throws {
        let bytes = utf8("id,text\n1,\"a\nb\"\n2,\"c,d\"\r\n\n3,e\n4,\"\"\"q\"\"\"\n")
        let all = try Self.records(bytes)
        #expect(all.count == 5)
        let fromStart = try Self.records(bytes, start: all[k - 1].start, number: k)
        #expect(fromStart == Array(all[(k - 1)...]), "from record \(k)")
        if k < all.count {
            let fromEnd = try Self.records(bytes, pieceSize: 3, start: all[k - 1].end, number: k + 1)
            #expect(fromEnd == Array(all[k...]), "after record \(k)")
        }
    }

    /// Pieces of every size from 1 to 40 and random ones give the same records.
    @Test func piecesOfEverySize() throws {
        var text = "a,b,c\n"
        for i in 0..<50 { text += "\(i),\"q \"\"\(i)\"\"\nline\",\(String(repeating: "x", count: i))\r\n" }
        let bytes = utf8(text)
        let whole = try Self.records(bytes)
        for piece in 1...40 {
            #expect(try Self.records(bytes, pieceSize: piece, readerPiece: 16) == whole, "piece \(piece)")
        }
        for seed in 1...10 as ClosedRange<UInt64> {
            let source = ByteSource(bytes, randomPiecesUpTo: 100, seed: seed)
            let reader = CSVRecordReader(pieceSize: 32)
            var got: [CSVRecord] = []
            while let record = try reader.next(pull: source.pull) { got.append(record) }
            #expect(got == whole, "seed \(seed)")
        }
    }

    @Test func unclosedQuoteNamesTheRecordAndOffset() throws {
        let bytes = utf8("a,b\n1,\"open\n2,3\n")
        #expect(throws: CSVError.unclosedQuote(record: 2, offset: 6)) { try Self.records(bytes) }
        #expect(throws: CSVError.unclosedQuote(record: 2, offset: 6)) { try Self.records(bytes, pieceSize: 1) }
    }

    @Test func byteAfterClosingQuoteIsAnError() throws {
        #expect(throws: CSVError.characterAfterQuote(record: 2, offset: 9)) {
            try Self.records(utf8("a,b\n1,\"x\"y\n"))
        }
    }

    @Test func recordsLongerThanTheLimitAreRefused() throws {
        let bytes = utf8("a\n" + String(repeating: "x", count: 100) + "\nb\n")
        #expect(throws: CSVError.recordTooLarge(record: 2, offset: 2, limit: 50)) {
            try Self.records(bytes, readerPiece: 16, limit: 50)
        }
        #expect(try Self.records(bytes, readerPiece: 16, limit: 101).count == 3)
    }

    @Test func headerBytesParseBack() throws {
        let header = try CSVHeader(parsing: utf8("\u{FEFF}\"a,1\",b\r\n"), dialect: .csv)
        #expect(header.names == ["a,1", "b"])
        #expect(header.bytes == utf8("\"a,1\",b\r\n"))
        #expect(throws: CSVError.self) { try CSVHeader(parsing: utf8("a,b\nc\n"), dialect: .csv) }
    }
}
