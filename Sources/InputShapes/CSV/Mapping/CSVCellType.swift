/// What a column's cells hold, and so how a cell becomes a JSON value.
package enum CSVCellType: Sendable, Equatable {
    /// The cell's text as a JSON string (it must be valid UTF-8).
    case string
    /// JSON number text, kept as written: `-1.5e3` is accepted; `1,5`, `NaN`, `+1`, `.5` and
    /// `01` are not. Spaces and tabs around it are ignored.
    case number
    /// An integer in JSON's form (an optional `-` and digits without a leading zero).
    case integer
    /// `true`/`false`, `1`/`0` or `yes`/`no`, in any case.
    case boolean
    /// One JSON value, written compactly.
    case json
    /// An ISO 8601 timestamp, kept as written, or an epoch time made ISO 8601 (UTC, with
    /// milliseconds and `Z`).
    case timestamp(EpochUnit)

    /// The type's name in a mapping configuration.
    package var name: String {
        switch self {
        case .string: return "string"
        case .number: return "number"
        case .integer: return "integer"
        case .boolean: return "boolean"
        case .json: return "json"
        case .timestamp: return "timestamp"
        }
    }
}

/// The unit of a timestamp cell that holds an epoch time (a number, not ISO 8601 text).
package enum EpochUnit: String, Sendable, Equatable, CaseIterable {
    /// Told apart by size: a magnitude of 100,000,000,000 or more (12 or more digits before any
    /// point) is milliseconds, anything smaller is seconds. Seconds reach the year 5138 before
    /// that size; milliseconds below it are times before 1973-03-03T09:46:40Z, which this reads
    /// as seconds: name the unit for such data.
    case auto
    /// Seconds since 1970-01-01T00:00:00Z; up to three fraction digits are kept as milliseconds.
    case seconds
    /// Milliseconds since 1970-01-01T00:00:00Z; a fraction is dropped.
    case milliseconds
}
