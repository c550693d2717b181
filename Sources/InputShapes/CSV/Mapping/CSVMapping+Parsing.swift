import JSONCore

extension CSVMapping {
    /// The keys a mapping object may have.
    static let keys = ["fields", "constants", "empty_cells", "unmapped_columns"]

    /// Reads a mapping from its configuration (YAML converted to JSON by the caller):
    ///
    /// ```yaml
    /// fields:                      # target path: column name, or { column, type, unit }
    ///   event: action
    ///   properties.price: { column: price, type: number }
    ///   timestamp: { column: ts, type: timestamp, unit: milliseconds }
    /// constants:                   # target path: any JSON value
    ///   type: track
    /// empty_cells: omit            # or null
    /// unmapped_columns: drop       # or properties
    /// ```
    ///
    /// - Parameter key: where `value` sits in the configuration, for errors.
    /// - Throws: ``MappingConfigError`` naming the key at fault.
    package init(parsing value: JSONValue, key: String = "mapping") throws(MappingConfigError) {
        let object = try ConfigObject(value, key: key, allowed: Self.keys)
        var fields: [Field] = []
        if let list = try object.object("fields") {
            for member in list {
                fields.append(try Self.field(member.value, target: member.key, key: "\(key).fields[\"\(member.key)\"]"))
            }
        }
        var constants: [Constant] = []
        if let list = try object.object("constants") {
            for member in list {
                let memberKey = "\(key).constants[\"\(member.key)\"]"
                guard let path = FieldPath(dotted: member.key) else { throw MappingConfigError(key: memberKey, "not a dotted member path") }
                constants.append(Constant(path, member.value))
            }
        }
        // YAML's bare `null` arrives as JSON null.
        let empty = object.members["empty_cells"] == .null ? .null : try object.choice("empty_cells", EmptyCells.self) ?? .omit
        let unmapped = try object.choice("unmapped_columns", UnmappedColumns.self) ?? .drop
        guard !fields.isEmpty || !constants.isEmpty || unmapped == .properties else {
            throw MappingConfigError(key: key, "maps nothing: give fields or constants, or unmapped_columns: properties")
        }
        self.init(fields: fields, constants: constants, emptyCells: empty, unmappedColumns: unmapped)
        try checkTargets(key: key)
    }

    /// The keys a field's object form may have.
    static let fieldKeys = ["column", "type", "unit"]

    /// One field: a column name, or `{ column, type, unit }`.
    static func field(_ value: JSONValue, target: String, key: String) throws(MappingConfigError) -> Field {
        guard let path = FieldPath(dotted: target) else { throw MappingConfigError(key: key, "not a dotted member path") }
        if let column = value.stringValue { return Field(path, column: column) }
        let object = try ConfigObject(value, key: key, allowed: fieldKeys, what: "a column name or an object")
        guard let column = try object.string("column") else { throw MappingConfigError(key: "\(key).column", "missing") }
        let typeName = try object.string("type") ?? "string"
        let unitName = try object.string("unit")
        let type: CSVCellType
        switch typeName {
        case "string": type = .string
        case "number": type = .number
        case "integer": type = .integer
        case "boolean": type = .boolean
        case "json": type = .json
        case "timestamp":
            let unit = try unitName.map { (name) throws(MappingConfigError) -> EpochUnit in
                guard let unit = EpochUnit(rawValue: name) else {
                    throw MappingConfigError(key: "\(key).unit", "unknown unit \"\(name)\" (expected auto, seconds or milliseconds)")
                }
                return unit
            }
            type = .timestamp(unit ?? .auto)
        default:
            throw MappingConfigError(
                key: "\(key).type", "unknown type \"\(typeName)\" (expected string, number, integer, boolean, json or timestamp)")
        }
        if unitName != nil, typeName != "timestamp" {
            throw MappingConfigError(key: "\(key).unit", "only a timestamp field has a unit")
        }
        return Field(path, column: column, type: type)
    }
}
