import JSONCore

/// How the records of a delimited file become events: which column feeds which member, with
/// which type; members every event gets; what empty cells and unmapped columns become.
///
/// Members appear in the event in this order: constants, then fields, each in the order given
/// (a nested object where its first member appears), then unmapped columns collected into
/// `properties` in header order. A nested object left without members is left out.
package struct CSVMapping: Sendable, Equatable {
    /// What an empty cell becomes (a typed cell holding only spaces and tabs is empty too).
    package enum EmptyCells: String, Sendable, Equatable, CaseIterable {
        /// No member.
        case omit
        /// A `null` member.
        case null
    }

    /// What happens to the columns no field names.
    package enum UnmappedColumns: String, Sendable, Equatable, CaseIterable {
        /// They are left out.
        case drop
        /// Each becomes a string member of `properties` named as its column.
        case properties
    }

    /// One member fed by a column.
    package struct Field: Sendable, Equatable {
        /// Where the value goes.
        package var target: FieldPath
        /// The column's name in the header.
        package var column: String
        /// How the cell becomes a value.
        package var type: CSVCellType

        /// A field mapping.
        package init(_ target: FieldPath, column: String, type: CSVCellType = .string) {
            self.target = target
            self.column = column
            self.type = type
        }
    }

    /// One member with the same value in every event.
    package struct Constant: Sendable, Equatable {
        /// Where the value goes.
        package var target: FieldPath
        /// The value.
        package var value: JSONValue

        /// A constant member.
        package init(_ target: FieldPath, _ value: JSONValue) {
            self.target = target
            self.value = value
        }
    }

    /// The members fed by columns, in order.
    package var fields: [Field]
    /// The members set to the same value in every event, in order.
    package var constants: [Constant]
    /// What an empty cell becomes.
    package var emptyCells: EmptyCells
    /// What happens to the columns no field names.
    package var unmappedColumns: UnmappedColumns

    /// A mapping.
    package init(
        fields: [Field], constants: [Constant] = [], emptyCells: EmptyCells = .omit,
        unmappedColumns: UnmappedColumns = .drop
    ) {
        self.fields = fields
        self.constants = constants
        self.emptyCells = emptyCells
        self.unmappedColumns = unmappedColumns
    }

    /// The Segment fields a column of the same name feeds in the default mapping.
    package static let segmentFields = ["type", "event", "userId", "anonymousId", "messageId", "timestamp", "name"]

    /// The objects a dotted column name (`properties.plan`, `context.device.id`) reaches into in
    /// the default mapping.
    package static let segmentObjects = ["properties", "traits", "context"]

    /// The mapping used when none is configured: a column named like a Segment field
    /// (``segmentFields``, exact case) feeds that field, as a string (`timestamp` as a
    /// timestamp, epoch units told apart by size); a column named with a dotted path into
    /// `properties`, `traits` or `context` feeds that member, as a string; every other column
    /// becomes a string member of `properties`. Empty cells are left out.
    package static func defaultMapping(for columns: [String]) -> CSVMapping {
        var fields: [Field] = []
        for name in columns {
            if segmentFields.contains(name), let path = FieldPath(components: [name]) {
                let type: CSVCellType = name == "timestamp" ? .timestamp(.auto) : .string
                fields.append(Field(path, column: name, type: type))
            } else if let path = FieldPath(dotted: name), path.components.count > 1,
                segmentObjects.contains(path.components[0])
            {
                fields.append(Field(path, column: name))
            }
        }
        return CSVMapping(fields: fields, unmappedColumns: .properties)
    }
}
