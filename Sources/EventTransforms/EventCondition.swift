import JSONCore

/// What a `keep` or `drop` step matches. Every criterion given must hold (they are ANDed);
/// several `drop` steps in a row drop events matching any of them.
package struct EventCondition: Sendable, Equatable {
    /// The event's `type` is one of these (exact bytes); nil: any type.
    package var types: [String]?
    /// The event's `event` (its name) is one of these; nil: any name. An event without a
    /// string `event` does not match.
    package var events: [String]?
    /// A test of one field; nil: none.
    package var field: FieldTest?

    /// A condition of these criteria.
    package init(types: [String]? = nil, events: [String]? = nil, field: FieldTest? = nil) {
        self.types = types
        self.events = events
        self.field = field
    }
}

/// A test of the value at one path, for ``EventCondition``.
package struct FieldTest: Sendable, Equatable {
    /// What is tested of the value.
    package enum Test: Sendable, Equatable {
        /// The field is present and equal to this value (``JSONValue/matches(_:)``).
        case equals(JSONValue)
        /// The field is present and equal to one of these values.
        case oneOf([JSONValue])
        /// The field is present (true) or absent (false). A `null` value is present.
        case exists(Bool)
    }

    /// The field.
    package var path: FieldPath
    /// The test.
    package var test: Test

    /// A test of `path`.
    package init(path: FieldPath, test: Test) {
        self.path = path
        self.test = test
    }
}
