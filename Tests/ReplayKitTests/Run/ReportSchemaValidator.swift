import Foundation
import JSONCore

/// A validator for the subset of JSON Schema (draft 2020-12) that `docs/report.schema.json`
/// uses: `type`, `required`, `properties`, `additionalProperties` (false or a schema), `items`,
/// `enum`, `minimum`, and `$ref` to `#/$defs/NAME`. Any other keyword in the schema is itself
/// an error, so the schema cannot rely on a rule nothing checks.
struct SchemaValidator {
    let root: JSONObject

    /// Keywords that only annotate.
    static let annotations: Set<String> = ["description", "title", "$schema", "$id", "$defs"]
    /// Keywords this validator checks.
    static let checked: Set<String> = [
        "type", "required", "properties", "additionalProperties", "items", "enum", "minimum", "$ref",
    ]

    init(schemaAt path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let object = try JSONValue(parsing: text).objectValue else { throw SchemaProblem("\(path): not an object") }
        root = object
    }

    init(root: JSONObject) { self.root = root }

    /// Every way `value` breaks the schema, each as `<JSON pointer>: <what>`; empty when it conforms.
    func errors(_ value: JSONValue) -> [String] {
        var errors: [String] = []
        check(value, against: root, at: "", into: &errors)
        return errors
    }

    private func check(_ value: JSONValue, against schema: JSONObject, at path: String, into errors: inout [String]) {
        let here = path.isEmpty ? "/" : path
        for key in schema.keys where !Self.annotations.contains(key) && !Self.checked.contains(key) {
            errors.append("\(here): the schema uses '\(key)', which this validator does not check")
        }
        if let ref = schema["$ref"]?.stringValue {
            guard let target = resolve(ref) else {
                errors.append("\(here): cannot resolve $ref \(ref)")
                return
            }
            check(value, against: target, at: path, into: &errors)
        }
        if let type = schema["type"]?.stringValue, !Self.value(value, is: type) {
            errors.append("\(here): expected \(type), found \(Self.kind(value))")
            return
        }
        if case .array(let allowed)? = schema["enum"], !allowed.contains(value) {
            errors.append("\(here): \(value) is not one of \(allowed.map { "\($0)" }.joined(separator: ", "))")
        }
        if case .number(let minimum)? = schema["minimum"], case .number(let n) = value, n.doubleValue < minimum.doubleValue {
            errors.append("\(here): \(n) is below the minimum \(minimum)")
        }
        if case .object(let object) = value { checkObject(object, against: schema, at: path, into: &errors) }
        if case .array(let elements) = value, case .object(let itemSchema)? = schema["items"] {
            for (i, element) in elements.enumerated() { check(element, against: itemSchema, at: "\(path)/\(i)", into: &errors) }
        }
    }

    private func checkObject(_ object: JSONObject, against schema: JSONObject, at path: String, into errors: inout [String]) {
        let properties = schema["properties"]?.objectValue ?? JSONObject()
        if case .array(let required)? = schema["required"] {
            for case .string(let name) in required where object[name] == nil {
                errors.append("\(path.isEmpty ? "/" : path): missing required '\(name)'")
            }
        }
        for (key, member) in object {
            let memberPath = path + "/" + key
            if case .object(let propertySchema)? = properties[key] {
                check(member, against: propertySchema, at: memberPath, into: &errors)
            } else {
                switch schema["additionalProperties"] {
                case .bool(false)?: errors.append("\(memberPath): not in the schema (additionalProperties is false)")
                case .object(let extra)?: check(member, against: extra, at: memberPath, into: &errors)
                default: break
                }
            }
        }
    }

    /// The schema `#/$defs/NAME` names.
    private func resolve(_ ref: String) -> JSONObject? {
        let prefix = "#/$defs/"
        guard ref.hasPrefix(prefix) else { return nil }
        return root["$defs"]?.objectValue?[String(ref.dropFirst(prefix.count))]?.objectValue
    }

    static func value(_ value: JSONValue, is type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null),
            ("number", .number):
            return true
        case ("integer", .number(let n)): return n.isInteger
        default: return false
        }
    }

    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number(let n): n.isInteger ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Paths of every object member and definition in the schema that has no `description`.
    func undocumented() -> [String] {
        var missing: [String] = []
        func walk(_ schema: JSONObject, _ path: String, named: Bool) {
            if named, schema["description"] == nil { missing.append(path) }
            for case (let name, .object(let sub)) in schema["properties"]?.objectValue ?? JSONObject() {
                walk(sub, path + "/properties/" + name, named: true)
            }
            for case (let name, .object(let sub)) in schema["$defs"]?.objectValue ?? JSONObject() {
                walk(sub, path + "/$defs/" + name, named: true)
            }
            if case .object(let sub)? = schema["items"] { walk(sub, path + "/items", named: false) }
            if case .object(let sub)? = schema["additionalProperties"] { walk(sub, path + "/additionalProperties", named: false) }
        }
        walk(root, "#", named: false)
        return missing
    }
}

/// The schema file is not what the validator expects.
struct SchemaProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
