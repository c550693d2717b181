import JSONCore

/// Reading, removing and writing values at object paths inside a tree. Keys match by UTF-8
/// bytes (``JSONObject``); the last member with a key is the one read.
extension JSONValue {
    /// The value at `path` below this one; nil when a key is missing or a value on the way is
    /// not an object.
    func value(at path: ArraySlice<String>) -> JSONValue? {
        var current = self
        for key in path {
            guard case .object(let object) = current, let next = object[key] else { return nil }
            current = next
        }
        return current
    }

    /// Removes the value at `path` below this one (every member with the last key) and returns
    /// the one that was read there; nil, and nothing changed, when it is absent.
    mutating func removeValue(at path: ArraySlice<String>) -> JSONValue? {
        guard let key = path.first, case .object(var object) = self, var child = object[key] else { return nil }
        // Detach the payloads before mutating them, so that they are not copied.
        self = .null
        defer { self = .object(object) }
        if path.count == 1 {
            object[key] = nil
            return child
        }
        object[key] = .null
        defer { object[key] = child }
        return child.removeValue(at: path.dropFirst())
    }

    /// Writes `value` at `path` below this one, creating objects for missing keys and in place
    /// of `null`s on the way. `path` is the end of `full`, whose first `depth` keys lead here
    /// (for the error). Throws when a value on the way is neither an object nor null.
    mutating func setValue(_ value: JSONValue, at path: ArraySlice<String>, full: FieldPath, depth: Int) throws(PathConflict) {
        guard let key = path.first else {
            self = value
            return
        }
        var object: JSONObject
        switch self {
        case .null: object = JSONObject()
        case .object(let o): object = o
        default: throw PathConflict(at: full.prefix(depth), found: PathConflict.kindName(self))
        }
        self = .null
        defer { self = .object(object) }
        if path.count == 1 {
            object[key] = value
            return
        }
        var child = object[key] ?? .null
        object[key] = .null
        defer { object[key] = child }
        try child.setValue(value, at: path.dropFirst(), full: full, depth: depth + 1)
    }
}
