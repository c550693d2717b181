import EventTransforms
import Foundation
import JSONCore

/// Reads typed values out of YAML nodes, reporting problems with file, line and column.
struct ConfigReader {
    let file: String
    let environment: [String: String]

    func error(_ node: YAMLNode, _ message: String) -> ConfigError {
        ConfigError(file: file, line: node.mark.line, column: node.mark.column, message: message)
    }

    /// The members of a mapping, keyed by name, after checking every key is one of `allowed`.
    func members(_ node: YAMLNode, section: String, allowed: [String]) throws(ConfigError) -> [String: (key: YAMLNode, value: YAMLNode)] {
        guard case .mapping(let pairs, _) = node else {
            if section.isEmpty {
                throw error(node, "the configuration must be a mapping of sections (\(allowed.joined(separator: ", "))), found \(node.kindName)")
            }
            throw error(node, "'\(section)' must be a mapping, found \(node.kindName)")
        }
        var out: [String: (key: YAMLNode, value: YAMLNode)] = [:]
        for (k, v) in pairs {
            guard let name = k.scalarText else { throw error(k, "keys in '\(section)' must be plain names") }
            let path = section.isEmpty ? name : "\(section).\(name)"
            guard allowed.contains(name) else {
                var message = "unknown key '\(path)'"
                if let s = KeySuggestion.closest(to: name, among: allowed) {
                    message += "; did you mean '\(section.isEmpty ? s : "\(section).\(s)")'?"
                } else {
                    message += " (allowed: \(allowed.joined(separator: ", ")))"
                }
                throw error(k, message)
            }
            guard out[name] == nil else { throw error(k, "duplicate key '\(path)'") }
            out[name] = (k, v)
        }
        return out
    }

    /// A scalar's text after `${VAR}` expansion.
    func string(_ node: YAMLNode, _ path: String) throws(ConfigError) -> String {
        guard case .scalar(let text, _, _) = node else {
            throw error(node, "'\(path)' must be a single value, found \(node.kindName)")
        }
        do {
            return try EnvInterpolation.expand(text, environment: environment)
        } catch {
            throw self.error(node, "'\(path)': \(error.message)")
        }
    }

    func bool(_ node: YAMLNode, _ path: String) throws(ConfigError) -> Bool {
        switch try string(node, path).lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error(node, "'\(path)' must be true or false")
        }
    }

    func int(_ node: YAMLNode, _ path: String, min: Int, max: Int = .max) throws(ConfigError) -> Int {
        let text = try string(node, path).replacingOccurrences(of: "_", with: "")
        guard let v = Int(text) else { throw error(node, "'\(path)' must be a whole number") }
        guard v >= min, v <= max else {
            throw error(node, max < .max ? "'\(path)' must be between \(min) and \(max)" : "'\(path)' must be at least \(min)")
        }
        return v
    }

    func double(_ node: YAMLNode, _ path: String, min: Double, max: Double = .infinity) throws(ConfigError) -> Double {
        let text = try string(node, path).replacingOccurrences(of: "_", with: "")
        guard let v = Double(text), v.isFinite else { throw error(node, "'\(path)' must be a number") }
        guard v >= min, v <= max else {
            throw error(
                node,
                max.isFinite ? "'\(path)' must be between \(Self.text(min)) and \(Self.text(max))" : "'\(path)' must be at least \(Self.text(min))")
        }
        return v
    }

    /// A bound as written in messages: whole numbers without a decimal point.
    static func text(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    func stringList(_ node: YAMLNode, _ path: String) throws(ConfigError) -> [String] {
        guard case .sequence(let items, _) = node else {
            throw error(node, "'\(path)' must be a list, found \(node.kindName)")
        }
        var out: [String] = []
        for item in items { out.append(try string(item, path)) }
        return out
    }

    /// A mapping converted to a JSON object (plain scalars become numbers, booleans or null when they look like one).
    func jsonObject(_ node: YAMLNode, _ path: String) throws(ConfigError) -> JSONObject {
        guard case .mapping(let pairs, _) = node else {
            throw error(node, "'\(path)' must be a mapping, found \(node.kindName)")
        }
        var obj = JSONObject()
        for (k, v) in pairs {
            guard let key = k.scalarText else { throw error(k, "keys in '\(path)' must be plain names") }
            obj.members.append((key, try json(v, "\(path).\(key)")))
        }
        return obj
    }

    func json(_ node: YAMLNode, _ path: String) throws(ConfigError) -> JSONValue {
        switch node {
        case .mapping: return .object(try jsonObject(node, path))
        case .sequence(let items, _):
            var out: [JSONValue] = []
            for item in items { out.append(try json(item, path)) }
            return .array(out)
        case .scalar(_, let plain, _):
            let text = try string(node, path)
            guard plain else { return .string(text) }
            switch text {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null", "~": return .null
            default:
                if let parsed = try? JSONValue(parsing: text), case .number = parsed { return parsed }
                return .string(text)
            }
        }
    }
}
