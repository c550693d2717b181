import JSONCore

/// Finding members by key, and reading values as trees.
extension EventDocument {
    /// The index of the last member of object `o` whose key's UTF-8 bytes are `key`.
    func index(of key: [UInt8], in o: Int) -> Int? {
        // Locals, not `self`, in the closure: capturing the document would copy it.
        let members = objects[o].members, source = source, addedKeys = addedKeys
        return key.withUnsafeBufferPointer { want -> Int? in
            for i in members.indices.reversed() where Self.keyEquals(members[i].key, want, source, addedKeys) { return i }
            return nil
        }
    }

    /// Whether `key`, of a document with this source and these added keys, is the key whose
    /// UTF-8 bytes are `want`.
    static func keyEquals(_ key: Key, _ want: UnsafeBufferPointer<UInt8>, _ source: UnsafeBufferPointer<UInt8>, _ addedKeys: [String]) -> Bool {
        switch key {
        case .added(let k):
            var key = addedKeys[k]
            return key.withUTF8 { same($0, want) }
        case .source(let range, let escaped):
            if escaped {
                var decoded = JSONStrings.decode(source, range, hasEscapes: true)
                return decoded.withUTF8 { same($0, want) }
            }
            return same(UnsafeBufferPointer(rebasing: source[range]), want)
        }
    }

    /// Whether two byte sequences are equal (keys are short: a plain loop).
    @inline(__always)
    static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count where a[i] != b[i] { return false }
        return true
    }

    /// The text of `key`.
    func text(of key: Key) -> String {
        switch key {
        case .added(let k): return addedKeys[k]
        case .source(let range, let escaped): return JSONStrings.decode(source, range, hasEscapes: escaped)
        }
    }

    /// `content` as a tree (a listed object is read member by member).
    func tree(of content: Content) -> JSONValue {
        switch content {
        case .tree(let value): return value
        case .source(let range, _): return parse(range)
        case .object(let k):
            var object = JSONObject()
            object.members.reserveCapacity(objects[k].members.count)
            for m in objects[k].members { object.members.append((key: text(of: m.key), value: tree(of: self.content(of: m.slot)))) }
            return .object(object)
        }
    }

    /// Parses the value at `range` of the source.
    private func parse(_ range: Range<Int>) -> JSONValue {
        do {
            return try JSONParser.parse(UnsafeBufferPointer(rebasing: source[range]))
        } catch {
            // `load` validated the whole object with the same grammar, and a value inside it is
            // no deeper on its own than it was there.
            preconditionFailure("a value inside a validated object did not parse: \(error)")
        }
    }

    /// Calls `body` with the UTF-8 bytes of the string value of the event's member named `key`;
    /// nil when there is none or its value is not a string. Allocates nothing for an
    /// unescaped string.
    func withString<R>(_ key: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard let i = index(of: key, in: 0) else { return nil }
        switch objects[0].members[i].slot {
        case .tree(let t):
            guard case .string(var text) = trees[t] else { return nil }
            return text.withUTF8(body)
        case .object:
            return nil
        case .source(let range, let kind):
            guard kind == .string else { return nil }
            let inner = (range.lowerBound + 1)..<(range.upperBound - 1)
            let bytes = UnsafeBufferPointer(rebasing: source[inner])
            guard bytes.contains(UInt8(ascii: "\\")) else { return body(bytes) }
            var decoded = JSONStrings.decode(source, inner, hasEscapes: true)
            return decoded.withUTF8(body)
        }
    }
}
