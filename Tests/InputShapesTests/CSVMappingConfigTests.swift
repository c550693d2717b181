import InputShapes
import JSONCore
import Testing

/// Reading a mapping (and a CSV input's configuration) from JSON, with errors naming the key.
@Suite struct CSVMappingConfigTests {
    static func parse(_ json: String) throws -> CSVMapping {
        try CSVMapping(parsing: JSONValue(parsing: json))
    }

    @Test func readsEveryForm() throws {
        let mapping = try Self.parse(
            """
            {"fields": {"event": "action", "properties.price": {"column": "price", "type": "number"},
                        "timestamp": {"column": "ts", "type": "timestamp", "unit": "milliseconds"},
                        "properties.meta": {"column": "meta", "type": "json"}},
             "constants": {"type": "track", "context.library": {"name": "mr-replay"}},
             "empty_cells": "null", "unmapped_columns": "properties"}
            """)
        #expect(mapping.fields.map(\.target.description) == ["event", "properties.price", "timestamp", "properties.meta"])
        #expect(mapping.fields.map(\.type) == [.string, .number, .timestamp(.milliseconds), .json])
        #expect(mapping.fields.map(\.column) == ["action", "price", "ts", "meta"])
        #expect(mapping.constants.map(\.value) == ["track", ["name": "mr-replay"]])
        #expect(mapping.emptyCells == .null)
        #expect(mapping.unmappedColumns == .properties)
        // YAML's bare null arrives as JSON null.
        #expect(try Self.parse(#"{"fields": {"event": "a"}, "empty_cells": null}"#).emptyCells == .null)
    }

    /// Configurations that are wrong, and the key each error names.
    static let badConfigurations: [(String, String)] = [
        (#"{"field": {}}"#, "mapping.field"),
        (#"{"fields": {"event": {"type": "string"}}}"#, #"mapping.fields["event"].column"#),
        (#"{"fields": {"event": {"column": "a", "type": "float"}}}"#, #"mapping.fields["event"].type"#),
        (#"{"fields": {"event": {"column": "a", "unit": "seconds"}}}"#, #"mapping.fields["event"].unit"#),
        (#"{"fields": {"t": {"column": "a", "type": "timestamp", "unit": "ns"}}}"#, #"mapping.fields["t"].unit"#),
        (#"{"fields": {"a..b": "x"}}"#, #"mapping.fields["a..b"]"#),
        (#"{"fields": {"event": 3}}"#, #"mapping.fields["event"]"#),
        (#"{"fields": {"event": {"column": "a", "extra": 1}}}"#, #"mapping.fields["event"].extra"#),
        (#"{"fields": []}"#, "mapping.fields"),
        (#"{"fields": {"event": "a"}, "empty_cells": "zero"}"#, "mapping.empty_cells"),
        (#"{"fields": {"event": "a"}, "unmapped_columns": "keep"}"#, "mapping.unmapped_columns"),
        (#"{"fields": {"context": "a", "context.ip": "b"}}"#, #"mapping.fields["context.ip"]"#),
        (#"{"fields": {"type": "a"}, "constants": {"type": "track"}}"#, #"mapping.fields["type"]"#),
        (
            #"{"fields": {"properties": {"column": "p", "type": "json"}}, "unmapped_columns": "properties"}"#,
            #"mapping.fields["properties"]"#
        ),
        (#"{}"#, "mapping"),
        (#"[]"#, "mapping"),
    ]

    @Test(arguments: badConfigurations)
    func errorsNameTheKey(json: String, key: String) throws {
        do {
            _ = try Self.parse(json)
            Issue.record("accepted \(json)")
        } catch let error as MappingConfigError {
            #expect(error.key == key, "\(json): \(error)")
        }
    }

    @Test func inputConfiguration() throws {
        let config = try CSVInputConfiguration(
            parsing: JSONValue(parsing: #"{"delimiter": "tab", "quoting": false, "max_record_bytes": 4096, "mapping": {"fields": {"event": "e"}}}"#))
        #expect(config.dialect == CSVDialect(delimiter: 0x09, quoting: false))
        #expect(config.maximumRecordBytes == 4096)
        #expect(config.mapping?.fields.count == 1)
        let defaults = try CSVInputConfiguration(parsing: JSONValue(parsing: "{}"), defaultDialect: .tsv)
        #expect(defaults.dialect == .tsv && defaults.mapping == nil)
        for (json, key) in [
            (#"{"delimiter": "\""}"#, "csv.delimiter"), (#"{"delimiter": ";;"}"#, "csv.delimiter"),
            (#"{"max_record_bytes": 0}"#, "csv.max_record_bytes"), (#"{"quoting": "yes"}"#, "csv.quoting"),
            (#"{"mapping": {"fields": {"x": 1}}}"#, #"csv.mapping.fields["x"]"#),
        ] {
            #expect(throws: MappingConfigError.self, "\(json)") { try CSVInputConfiguration(parsing: JSONValue(parsing: json)) }
            do {
                _ = try CSVInputConfiguration(parsing: JSONValue(parsing: json))
            } catch let error as MappingConfigError {
                #expect(error.key == key, "\(json): \(error)")
            }
        }
        #expect(try CSVInputConfiguration(parsing: JSONValue(parsing: #"{"delimiter": ";"}"#)).dialect.delimiter == UInt8(ascii: ";"))
    }
}
