import JSONCore

/// Reads one step of a `transform:` section.
enum StepParser {
    /// Reads the step at position `index` (from 1).
    static func parse(_ value: JSONValue, index: Int) throws(TransformConfigError) -> TransformStep {
        let kinds = StepKind.allCases.map(\.rawValue)
        guard case .object(let object) = value else {
            throw TransformConfigError(
                "a step must be a mapping with one step kind (\(kinds.joined(separator: ", "))), found \(ConfigValues.describe(value))",
                step: index)
        }
        guard object.count == 1, let (name, body) = object.members.first else {
            let found = object.keys.map { "'\($0)'" }.joined(separator: ", ")
            throw TransformConfigError(
                "a step must have exactly one step kind (\(kinds.joined(separator: ", "))), found \(object.isEmpty ? "none" : found)",
                step: index, key: object.keys.dropFirst().first)
        }
        guard let kind = StepKind(rawValue: name) else {
            let suggestion = KeySuggestion.closest(to: name, among: kinds)
            let list = suggestion == nil ? " (kinds: \(kinds.joined(separator: ", ")))" : ""
            throw TransformConfigError("unknown step kind '\(name)'\(list)", step: index, key: name, suggestion: suggestion)
        }
        let reader = ConfigValues(step: index, kind: kind)
        switch kind {
        case .rename: return try rename(body, reader)
        case .set: return try set(body, reader)
        case .delete: return try delete(body, reader)
        case .mapEvents: return try mapEvents(body, reader)
        case .keep: return .keep(try ConditionParser.parse(body, reader))
        case .drop: return .drop(try ConditionParser.parse(body, reader))
        case .copyPropertiesToTraits: return try copyToTraits(body, reader)
        case .jq: return .jq(try reader.string(body, key: kind.rawValue))
        }
    }

    /// `rename: {from: PATH, to: PATH}`.
    static func rename(_ body: JSONValue, _ r: ConfigValues) throws(TransformConfigError) -> TransformStep {
        let m = try r.members(body, allowed: ["from", "to"], required: ["from", "to"])
        let from = try r.path(m["from"]!, key: "from")
        let to = try r.path(m["to"]!, key: "to")
        guard from != to else { throw r.error("'from' and 'to' are the same path, '\(from)'", key: "to") }
        return .rename(from: from, to: to)
    }

    /// `set: {path: PATH, value: ANY, if_absent: BOOL}`.
    static func set(_ body: JSONValue, _ r: ConfigValues) throws(TransformConfigError) -> TransformStep {
        let m = try r.members(body, allowed: ["path", "value", "if_absent"], required: ["path", "value"])
        let path = try r.path(m["path"]!, key: "path")
        let ifAbsent = try m["if_absent"].map { v throws(TransformConfigError) in try r.bool(v, key: "if_absent") } ?? false
        return .set(path: path, value: m["value"]!, ifAbsent: ifAbsent)
    }

    /// `delete: PATH` or `delete: [PATH, ...]` (a path in a list may itself be a list of keys).
    static func delete(_ body: JSONValue, _ r: ConfigValues) throws(TransformConfigError) -> TransformStep {
        guard case .array(let items) = body else { return .delete([try r.path(body, key: "delete")]) }
        guard !items.isEmpty else { throw r.error("'delete' must name at least one path", key: "delete") }
        var paths: [FieldPath] = []
        for item in items { paths.append(try r.path(item, key: "delete")) }
        return .delete(paths)
    }

    /// `map_events: {"Old Name": "New Name", ...}`.
    static func mapEvents(_ body: JSONValue, _ r: ConfigValues) throws(TransformConfigError) -> TransformStep {
        guard case .object(let object) = body, !object.isEmpty else {
            throw r.error("'map_events' must be a mapping of old event names to new ones, found \(ConfigValues.describe(body))")
        }
        var pairs: [(from: String, to: String)] = []
        for (from, to) in object.members {
            guard case .string(let name) = to, !name.isEmpty else {
                throw r.error("the new name for '\(from)' must be a non-empty string, found \(ConfigValues.describe(to))", key: from)
            }
            pairs.append((from, name))
        }
        return .mapEvents(EventNameMap(pairs))
    }

    /// `copy_properties_to_traits: all` or `[KEY, ...]`.
    static func copyToTraits(_ body: JSONValue, _ r: ConfigValues) throws(TransformConfigError) -> TransformStep {
        if case .string("all") = body { return .copyPropertiesToTraits(.all) }
        let keys = try r.strings(body, key: r.kind.rawValue)
        guard !keys.contains(where: \.isEmpty) else { throw r.error("a key to copy is empty", key: r.kind.rawValue) }
        return .copyPropertiesToTraits(.keys(keys))
    }
}
