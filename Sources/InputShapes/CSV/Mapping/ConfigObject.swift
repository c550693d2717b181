import JSONCore

/// A configuration object being read: its members by key, with errors that name the key.
struct ConfigObject {
    /// The object's members.
    let members: JSONObject
    /// Where the object sits, for errors.
    let key: String

    /// Checks that `value` is an object with no keys but `allowed`.
    init(_ value: JSONValue, key: String, allowed: [String], what: String = "an object") throws(MappingConfigError) {
        guard let members = value.objectValue else { throw MappingConfigError(key: key, "expected \(what)") }
        var seen: Set<String> = []
        for member in members {
            guard allowed.contains(member.key) else {
                throw MappingConfigError(
                    key: "\(key).\(member.key)", "unknown key (expected \(allowed.joined(separator: ", ")))")
            }
            guard seen.insert(member.key).inserted else { throw MappingConfigError(key: "\(key).\(member.key)", "given twice") }
        }
        self.members = members
        self.key = key
    }

    /// The string at `name`, if present.
    func string(_ name: String) throws(MappingConfigError) -> String? {
        guard let value = members[name] else { return nil }
        guard let text = value.stringValue else { throw MappingConfigError(key: "\(key).\(name)", "expected a string") }
        return text
    }

    /// The boolean at `name`, if present.
    func bool(_ name: String) throws(MappingConfigError) -> Bool? {
        guard let value = members[name] else { return nil }
        guard let flag = value.boolValue else { throw MappingConfigError(key: "\(key).\(name)", "expected true or false") }
        return flag
    }

    /// The positive integer at `name`, if present.
    func positiveInteger(_ name: String) throws(MappingConfigError) -> Int? {
        guard let value = members[name] else { return nil }
        guard case .number(let number) = value, let n = number.intValue, n > 0 else {
            throw MappingConfigError(key: "\(key).\(name)", "expected a positive integer")
        }
        return n
    }

    /// The object at `name`, if present.
    func object(_ name: String) throws(MappingConfigError) -> JSONObject? {
        guard let value = members[name] else { return nil }
        guard let object = value.objectValue else { throw MappingConfigError(key: "\(key).\(name)", "expected an object") }
        return object
    }

    /// The choice named by the string at `name`, if present.
    func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, _: Choice.Type) throws(MappingConfigError) -> Choice?
    where Choice.RawValue == String {
        guard let text = try string(name) else { return nil }
        guard let choice = Choice(rawValue: text) else {
            let names = Choice.allCases.map(\.rawValue).joined(separator: " or ")
            throw MappingConfigError(key: "\(key).\(name)", "unknown value \"\(text)\" (expected \(names))")
        }
        return choice
    }
}
