import JSONCore

/// Reads the condition of a `keep` or `drop` step.
enum ConditionParser {
    /// The event types of the Segment spec, for typo suggestions in `type:`.
    static let eventTypes = ["track", "identify", "page", "screen", "group", "alias"]

    /// Reads `{type: ..., event: ..., field: PATH, equals: V | in: [V...] | exists: BOOL}`.
    static func parse(_ body: JSONValue, _ r: ConfigValues) throws(TransformConfigError) -> EventCondition {
        let m = try r.members(body, allowed: ["type", "event", "field", "equals", "in", "exists"])
        var condition = EventCondition()
        if let v = m["type"] {
            let types = try r.strings(v, key: "type")
            for t in types where !eventTypes.contains(t) {
                throw r.error(
                    "unknown event type '\(t)' (types: \(eventTypes.joined(separator: ", ")))", key: "type",
                    suggestion: KeySuggestion.closest(to: t, among: eventTypes))
            }
            condition.types = types
        }
        if let v = m["event"] { condition.events = try r.strings(v, key: "event") }
        condition.field = try fieldTest(m, r)
        guard condition.types != nil || condition.events != nil || condition.field != nil else {
            throw r.error("the condition needs 'type', 'event' or 'field'")
        }
        return condition
    }

    /// The `field:` test and its one operator, if `field` is given.
    static func fieldTest(_ m: [String: JSONValue], _ r: ConfigValues) throws(TransformConfigError) -> FieldTest? {
        let operators = ["equals", "in", "exists"].filter { m[$0] != nil }
        guard let field = m["field"] else {
            if let op = operators.first { throw r.error("'\(op)' needs a 'field' to test", key: op) }
            return nil
        }
        let path = try r.path(field, key: "field")
        guard operators.count == 1 else {
            throw r.error("'field' needs exactly one of 'equals', 'in', 'exists', found \(operators.count)", key: "field")
        }
        switch operators[0] {
        case "equals":
            return FieldTest(path: path, test: .equals(m["equals"]!))
        case "in":
            guard case .array(let values) = m["in"]!, !values.isEmpty else {
                throw r.error("'in' must be a non-empty list of values, found \(ConfigValues.describe(m["in"]!))", key: "in")
            }
            return FieldTest(path: path, test: .oneOf(values))
        default:
            return FieldTest(path: path, test: .exists(try r.bool(m["exists"]!, key: "exists")))
        }
    }
}
