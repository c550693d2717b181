/// Why a record could not be converted: a stable reason code and a detail that names the recipe
/// and the field, for example `amplitude: event_type is missing`.
package struct RecipeFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// A stable snake_case code: `invalid_json`, `not_an_object`, `missing_field` or
    /// `invalid_field`.
    package let reason: String
    /// What went wrong, starting with the recipe's name.
    package let detail: String

    /// A failure with this reason and detail.
    package init(reason: String, detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// The reason and the detail, for logs.
    package var description: String { "\(reason): \(detail)" }

    /// The record is not valid JSON.
    static func invalidJSON(_ format: ExportFormat, _ why: String) -> RecipeFailure {
        RecipeFailure(reason: "invalid_json", detail: "\(format.rawValue): the record is not valid JSON (\(why))")
    }

    /// The record is valid JSON but not an object.
    static func notAnObject(_ format: ExportFormat) -> RecipeFailure {
        RecipeFailure(reason: "not_an_object", detail: "\(format.rawValue): the record is not a JSON object")
    }

    /// A field the recipe needs is absent, `null` or empty.
    static func missing(_ format: ExportFormat, _ field: String) -> RecipeFailure {
        RecipeFailure(reason: "missing_field", detail: "\(format.rawValue): \(field) is missing")
    }

    /// Neither of two fields that can each identify something is usable.
    static func missing(_ format: ExportFormat, either a: String, or b: String) -> RecipeFailure {
        RecipeFailure(reason: "missing_field", detail: "\(format.rawValue): \(a) and \(b) are both missing")
    }

    /// A field is present but cannot be used, for example a time that is not a number.
    static func invalid(_ format: ExportFormat, _ field: String, _ why: String) -> RecipeFailure {
        RecipeFailure(reason: "invalid_field", detail: "\(format.rawValue): \(field) \(why)")
    }
}
