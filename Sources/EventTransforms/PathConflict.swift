import JSONCore

/// A write that cannot be made: a value on the way to the path is neither an object nor null.
struct PathConflict: Error, Sendable, Equatable, CustomStringConvertible {
    /// The dotted path of the value in the way, such as `properties.items`.
    var at: String
    /// What is there instead of an object, such as `an array`.
    var found: String

    /// For example `'properties.items' is an array, not an object`.
    var description: String { "'\(at)' is \(found), not an object" }

    /// How a value's kind is named in messages.
    static func kindName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// How a scanned value's kind is named in messages.
    static func kindName(_ kind: JSONKind) -> String {
        switch kind {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
