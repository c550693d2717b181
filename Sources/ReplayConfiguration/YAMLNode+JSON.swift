import JSONCore

extension YAMLNode {
    /// The node as a JSON value, with YAML's types: a plain scalar `null`, `~` or nothing is
    /// null, `true`/`false` a boolean, a number in JSON's grammar a number (its text kept); any
    /// other scalar, and every quoted one, a string. `${VAR}` is expanded in scalars first.
    func jsonValue(_ r: ConfigReader, _ path: String) throws(ConfigError) -> JSONValue {
        switch self {
        case .scalar(_, let plain, _):
            let text = try r.string(self, path)
            guard plain else { return .string(text) }
            switch text {
            case "", "~", "null", "Null", "NULL": return .null
            case "true", "True", "TRUE": return .bool(true)
            case "false", "False", "FALSE": return .bool(false)
            default:
                if let number = try? JSONValue(parsing: text), case .number = number { return number }
                return .string(text)
            }
        case .sequence(let items, _):
            var values: [JSONValue] = []
            for (i, item) in items.enumerated() { values.append(try item.jsonValue(r, "\(path)[\(i)]")) }
            return .array(values)
        case .mapping(let pairs, _):
            var members: [(key: String, value: JSONValue)] = []
            for pair in pairs {
                let key = try r.string(pair.key, path)
                members.append((key, try pair.value.jsonValue(r, path.isEmpty ? key : "\(path).\(key)")))
            }
            return .object(JSONObject(members))
        }
    }
}
