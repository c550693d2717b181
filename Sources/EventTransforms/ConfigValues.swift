import JSONCore

/// Reading typed values out of a step's configuration, with errors naming the step and key.
struct ConfigValues {
    /// The step's position, from 1.
    let step: Int
    /// The step's kind.
    let kind: StepKind

    /// An error about `key` of this step.
    func error(_ message: String, key: String? = nil, suggestion: String? = nil) -> TransformConfigError {
        TransformConfigError(message, step: step, kind: kind.rawValue, key: key, suggestion: suggestion)
    }

    /// The members of `value`, which must be a mapping whose keys are among `allowed` and
    /// include every one of `required`. An unknown key gets the closest allowed key as a suggestion.
    func members(_ value: JSONValue, allowed: [String], required: [String] = [], what: String? = nil) throws(TransformConfigError) -> [String:
        JSONValue]
    {
        guard case .object(let object) = value else {
            throw error("'\(what ?? kind.rawValue)' must be a mapping of \(allowed.joined(separator: ", ")), found \(Self.describe(value))")
        }
        var out: [String: JSONValue] = [:]
        for (key, member) in object.members {
            guard allowed.contains(key) else {
                let suggestion = KeySuggestion.closest(to: key, among: allowed)
                let list = suggestion == nil ? " (allowed: \(allowed.joined(separator: ", ")))" : ""
                throw error("unknown key '\(key)'\(list)", key: key, suggestion: suggestion)
            }
            guard out[key] == nil else { throw error("duplicate key '\(key)'", key: key) }
            out[key] = member
        }
        for key in required where out[key] == nil {
            throw error("missing '\(key)'", key: key)
        }
        return out
    }

    /// A path: a dotted string or a list of keys.
    func path(_ value: JSONValue, key: String) throws(TransformConfigError) -> FieldPath {
        switch value {
        case .string(let text):
            guard let path = FieldPath(dotted: text) else {
                throw error("'\(key)' is not a valid path: '\(text)' has an empty key or ends in a backslash", key: key)
            }
            return path
        case .array(let items):
            var keys: [String] = []
            for item in items {
                guard case .string(let k) = item else {
                    throw error("'\(key)' as a list must hold keys (strings), found \(Self.describe(item))", key: key)
                }
                keys.append(k)
            }
            guard let path = FieldPath(components: keys) else {
                throw error("'\(key)' must hold at least one key and no empty key", key: key)
            }
            return path
        default:
            throw error("'\(key)' must be a path such as properties.price, found \(Self.describe(value))", key: key)
        }
    }

    /// A boolean: YAML `true`/`false`, or the words true, false, yes, no, on, off.
    func bool(_ value: JSONValue, key: String) throws(TransformConfigError) -> Bool {
        if case .bool(let b) = value { return b }
        if case .string(let text) = value {
            switch text.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default: break
            }
        }
        throw error("'\(key)' must be true or false, found \(Self.describe(value))", key: key)
    }

    /// A non-empty string.
    func string(_ value: JSONValue, key: String) throws(TransformConfigError) -> String {
        guard case .string(let text) = value, !text.isEmpty else {
            throw error("'\(key)' must be a non-empty string, found \(Self.describe(value))", key: key)
        }
        return text
    }

    /// One string or a non-empty list of strings.
    func strings(_ value: JSONValue, key: String) throws(TransformConfigError) -> [String] {
        if case .string(let text) = value { return [text] }
        guard case .array(let items) = value, !items.isEmpty else {
            throw error("'\(key)' must be a string or a non-empty list of strings, found \(Self.describe(value))", key: key)
        }
        var out: [String] = []
        for item in items {
            guard case .string(let text) = item else {
                throw error("'\(key)' must list strings, found \(Self.describe(item))", key: key)
            }
            out.append(text)
        }
        return out
    }

    /// How a value is named in messages: its YAML kind, and short scalars themselves.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return "the number \(n.text)"
        case .string(let s): return s.count <= 40 ? "the string '\(s)'" : "a string"
        case .array: return "a list"
        case .object: return "a mapping"
        }
    }
}
