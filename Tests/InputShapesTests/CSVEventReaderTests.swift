import InputShapes
import JSONCore
import Testing

/// Records to events through a mapping: typed cells, constants, empty cells, unmapped columns,
/// the default mapping, ragged rows, resuming.
@Suite struct CSVEventReaderTests {
    /// The events of `text` as JSON text.
    static func events(
        _ text: String, mapping: CSVMapping? = nil, dialect: CSVDialect = .csv, pieceSize: Int = .max
    ) throws -> [String] {
        let source = ByteSource(utf8(text), pieceSize: pieceSize)
        let reader = CSVEventReader(dialect: dialect, mapping: mapping)
        var out: [String] = []
        while let event = try reader.next(pull: source.pull) { out.append(String(decoding: event.json, as: UTF8.self)) }
        return out
    }

    /// A mapping of one column `v` of `type` to `properties.v`.
    static func single(_ type: CSVCellType, empty: CSVMapping.EmptyCells = .omit) -> CSVMapping {
        CSVMapping(fields: [.init(FieldPath(dotted: "properties.v")!, column: "v", type: type)], emptyCells: empty)
    }

    /// A cell's value as its column's type (nil: the member is absent).
    static let typedCells: [(CSVCellType, String, String?)] = [
        (.string, "plain", #""plain""#),
        (.string, " keeps spaces ", #"" keeps spaces ""#),
        (.string, "\"say \"\"hi\"\"\"", #""say \"hi\"""#),
        (.number, "12", "12"),
        (.number, " -1.5e3 ", "-1.5e3"),
        (.number, "0.25", "0.25"),
        (.integer, "-42", "-42"),
        (.integer, "0", "0"),
        (.boolean, "TRUE", "true"),
        (.boolean, "No", "false"),
        (.boolean, "1", "true"),
        (.boolean, "0", "false"),
        (.boolean, "yes", "true"),
        (.json, "\"{ \"\"a\"\": [1, 2], \"\"b\"\": \"\"x y\"\" }\"", #"{"a":[1,2],"b":"x y"}"#),
        (.json, "null", "null"),
        (.timestamp(.auto), "2024-05-06T07:08:09.123+02:00", #""2024-05-06T07:08:09.123+02:00""#),
        (.timestamp(.auto), "2024-05-06", #""2024-05-06""#),
        (.timestamp(.auto), "1700000000", #""2023-11-14T22:13:20.000Z""#),
        (.timestamp(.auto), "1700000000.5", #""2023-11-14T22:13:20.500Z""#),
        (.timestamp(.auto), "1700000000123", #""2023-11-14T22:13:20.123Z""#),
        (.timestamp(.auto), "0", #""1970-01-01T00:00:00.000Z""#),
        (.timestamp(.auto), "-1.5", #""1969-12-31T23:59:58.500Z""#),
        (.timestamp(.auto), "99999999999", #""5138-11-16T09:46:39.000Z""#),  // the largest seconds
        (.timestamp(.auto), "100000000000", #""1973-03-03T09:46:40.000Z""#),  // the smallest milliseconds
        (.timestamp(.milliseconds), "86400000", #""1970-01-02T00:00:00.000Z""#),
        (.timestamp(.seconds), "1700000000123", nil),  // out of range as seconds: an error
        (.string, "", nil),
        (.number, "  ", nil),
    ]

    @Test(arguments: typedCells)
    func typedCell(type: CSVCellType, cell: String, expected: String?) throws {
        let csv = "id,v\n1,\(cell)\n"
        if type == .timestamp(.seconds) {
            #expect(throws: CSVError.self) { try Self.events(csv, mapping: Self.single(type)) }
            return
        }
        let got = try Self.events(csv, mapping: Self.single(type))
        let want = expected.map { #"{"properties":{"v":\#($0)}}"# } ?? "{}"
        #expect(got == [want], "\(type.name) \(cell.debugDescription)")
    }

    /// Cells that are not values of their type, each an error naming record, column and value.
    static let badCells: [(CSVCellType, String)] = [
        (.number, "1,5"), (.number, "NaN"), (.number, "+1"), (.number, ".5"), (.number, "01"), (.number, "1e"),
        (.number, "Infinity"), (.integer, "1.0"), (.integer, "007"), (.integer, "-"), (.integer, "1e3"),
        (.boolean, "maybe"), (.boolean, "t"), (.json, "{\"a\":}"), (.json, "[1] 2"),
        (.timestamp(.auto), "yesterday"), (.timestamp(.auto), "2024-13-01"), (.timestamp(.auto), "2024-05-06T25:00"),
        (.timestamp(.auto), "12/05/2024"), (.timestamp(.auto), "99999999999999999"),
    ]

    @Test(arguments: badCells)
    func badCellNamesRecordColumnAndValue(type: CSVCellType, cell: String) throws {
        let quoted = "\"" + cell.replacing("\"", with: "\"\"") + "\""
        let csv = "id,v\n1,\n2,\(quoted)\n"  // record 2 has an empty cell, valid for every type
        let mapping = Self.single(type)
        do {
            _ = try Self.events(csv, mapping: mapping)
            Issue.record("\(type.name) \(cell.debugDescription) was accepted")
        } catch let error as CSVError {
            guard case .badCell(let record, let column, let value, _) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(record == 3 && column == "v" && value == cell, "\(error)")
        }
    }

    @Test func readerGoesOnAfterABadCell() throws {
        let reader = CSVEventReader(mapping: Self.single(.integer))
        let source = ByteSource(utf8("v\nx\n7\n"))
        #expect(throws: CSVError.badCell(record: 2, column: "v", value: "x", reason: "not an integer")) {
            _ = try reader.next(pull: source.pull)
        }
        #expect(try reader.next(pull: source.pull)?.json == utf8(#"{"properties":{"v":7}}"#))
        #expect(try reader.next(pull: source.pull) == nil)
    }

    @Test func invalidUTF8InAStringCellIsAnError() throws {
        let bytes: [UInt8] = utf8("v\n") + [0x61, 0xC3, 0x28] + utf8("\n")
        let reader = CSVEventReader(mapping: Self.single(.string))
        let source = ByteSource(bytes)
        #expect(throws: CSVError.self) { _ = try reader.next(pull: source.pull) }
    }

    @Test func emptyCellsAreAbsentOrNull() throws {
        let csv = "a,b\n,x\n"
        let fields: [CSVMapping.Field] = [
            .init(FieldPath(dotted: "properties.a")!, column: "a", type: .number),
            .init(FieldPath(dotted: "properties.b")!, column: "b"),
        ]
        #expect(try Self.events(csv, mapping: CSVMapping(fields: fields)) == [#"{"properties":{"b":"x"}}"#])
        #expect(
            try Self.events(csv, mapping: CSVMapping(fields: fields, emptyCells: .null))
                == [#"{"properties":{"a":null,"b":"x"}}"#])
        // An object left without members is left out.
        #expect(try Self.events("a,b\n,\n", mapping: CSVMapping(fields: fields)) == ["{}"])
    }

    @Test func constantsFieldsAndNesting() throws {
        let mapping = CSVMapping(
            fields: [
                .init(FieldPath(dotted: "event")!, column: "action"),
                .init(FieldPath(dotted: "userId")!, column: "user"),
                .init(FieldPath(dotted: "properties.price")!, column: "price", type: .number),
                .init(FieldPath(dotted: "context.device.id")!, column: "device"),
                .init(FieldPath(dotted: "properties.paid")!, column: "paid", type: .boolean),
            ],
            constants: [.init(FieldPath(dotted: "type")!, "track"), .init(FieldPath(dotted: "context.library.name")!, "mr-replay")])
        let csv = "action,user,price,device,paid,extra\nBuy,u1,9.99,d-7,yes,dropped\n"
        #expect(
            try Self.events(csv, mapping: mapping) == [
                #"{"type":"track","context":{"library":{"name":"mr-replay"},"device":{"id":"d-7"}},"event":"Buy","userId":"u1","properties":{"price":9.99,"paid":true}}"#
            ])
        var collecting = mapping
        collecting.unmappedColumns = .properties
        let events = try Self.events(csv, mapping: collecting)
        #expect(events.first?.hasSuffix(#""properties":{"price":9.99,"paid":true,"extra":"dropped"}}"#) == true, "\(events)")
    }

    @Test func defaultMapping() throws {
        let csv = "type,event,userId,timestamp,plan,properties.size,context.ip,messageId\ntrack,Signed Up,u1,1700000000,pro,XL,1.2.3.4,\n"
        #expect(
            try Self.events(csv) == [
                #"{"type":"track","event":"Signed Up","userId":"u1","timestamp":"2023-11-14T22:13:20.000Z","properties":{"size":"XL","plan":"pro"},"context":{"ip":"1.2.3.4"}}"#
            ])
    }

    @Test(arguments: [(["a", "b", "c"], 3), (["a"], 1)])
    func raggedRowNamesRecordAndCounts(row: [String], found: Int) throws {
        let csv = "x,y\n1,2\n" + row.joined(separator: ",") + "\n3,4\n"
        #expect(throws: CSVError.raggedRecord(record: 3, expected: 2, found: found)) { try Self.events(csv) }
        // The reader can go on after a ragged row.
        let reader = CSVEventReader()
        let source = ByteSource(utf8(csv))
        _ = try reader.next(pull: source.pull)
        #expect(throws: CSVError.self) { _ = try reader.next(pull: source.pull) }
        #expect(try reader.next(pull: source.pull)?.number == 4)
    }

    @Test func mappingMustFitTheHeader() throws {
        let missing = CSVMapping(fields: [.init(FieldPath(dotted: "event")!, column: "nope")])
        #expect(throws: CSVError.self) { try Self.events("a,b\n1,2\n", mapping: missing) }
        let twice = CSVMapping(fields: [.init(FieldPath(dotted: "event")!, column: "a")])
        #expect(throws: CSVError.self) { try Self.events("a,a\n1,2\n", mapping: twice) }
        #expect(throws: CSVError.self) { try Self.events("a,\n1,2\n") }  // a nameless column to collect
    }

    /// Resuming at each record's start with the header's bytes gives the events that reading
    /// from the start gives from there on.
    @Test func resumeEqualsReadingFromTheStart() throws {
        var csv = "\u{FEFF}\r\nevent,userId,n\r\n"  // a blank line before the header
        for i in 1...30 { csv += "\"E,\(i)\",u\(i),\"\(i)\n\"\r\n" + (i % 7 == 0 ? "\r\n" : "") }
        let bytes = utf8(csv)
        let reader = CSVEventReader()
        let source = ByteSource(bytes, pieceSize: 5)
        var all: [CSVEvent] = []
        while let event = try reader.next(pull: source.pull) { all.append(event) }
        let header = try #require(reader.header)
        #expect(all.count == 30)
        #expect(header.names == ["event", "userId", "n"])
        #expect(header.bytes == utf8("event,userId,n\r\n"))
        let saved = try CSVHeader(parsing: header.bytes, dialect: .csv)
        #expect(throws: CSVError.self) { try CSVEventReader(header: saved, resumingAt: 3, recordNumber: 2) }
        for (k, event) in all.enumerated() {
            let resumed = try CSVEventReader(header: saved, resumingAt: event.start, recordNumber: event.number)
            let from = ByteSource(bytes, from: event.start, pieceSize: 3)
            var rest: [CSVEvent] = []
            while let next = try resumed.next(pull: from.pull) { rest.append(next) }
            #expect(rest == Array(all[k...]), "resumed at record \(event.number)")
        }
    }

    @Test func tsvEvents() throws {
        let tsv = "event\tuserId\tnote\nBuy\tu1\ta,b\n"
        #expect(try Self.events(tsv, dialect: .tsv) == [#"{"event":"Buy","userId":"u1","properties":{"note":"a,b"}}"#])
    }
}
