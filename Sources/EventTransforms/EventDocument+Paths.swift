import JSONCore

/// Reading, removing and writing values at paths of the event.
extension EventDocument {
    /// Where the value that holds a path's last key is.
    enum Parent {
        /// In listed object `o`.
        case object(Int)
        /// Inside tree `t`, which is the value of the path's first `used` keys.
        case tree(Int, used: Int)
    }

    /// Walks to the value that holds `path`'s last key, listing the source's objects on the
    /// way (reading alone is no edit: a listed object renders as it was). Nil when a key on
    /// the way is missing or its value is not an object.
    private mutating func parent(of path: FieldPath) -> Parent? {
        var o = 0
        for depth in 0..<(path.components.count - 1) {
            guard let i = index(of: path.componentBytes[depth], in: o) else { return nil }
            switch objects[o].members[i].slot {
            case .object(let k): o = k
            case .tree(let t): return .tree(t, used: depth + 1)
            case .source(let range, let kind):
                guard kind == .object else { return nil }
                let k = openObject(range)
                objects[o].members[i].slot = .object(k)
                o = k
            }
        }
        return .object(o)
    }

    /// The value at `path`; nil when absent (a missing key, or a value on the way that is not
    /// an object).
    mutating func value(at path: FieldPath) -> JSONValue? {
        switch parent(of: path) {
        case nil: return nil
        case .tree(let t, let used): return trees[t].value(at: path.components[used...])
        case .object(let o):
            guard let i = index(of: path.componentBytes.last!, in: o) else { return nil }
            return tree(of: content(of: objects[o].members[i].slot))
        }
    }

    /// Whether a value (`null` included) is at `path`.
    mutating func contains(_ path: FieldPath) -> Bool {
        switch parent(of: path) {
        case nil: return false
        case .tree(let t, let used): return trees[t].value(at: path.components[used...]) != nil
        case .object(let o): return index(of: path.componentBytes.last!, in: o) != nil
        }
    }

    /// Removes the value at `path` and returns it; nil, and nothing changed, when it is absent.
    /// Every member with the path's last key goes; the value returned is the last one's.
    mutating func remove(_ path: FieldPath) -> Content? {
        switch parent(of: path) {
        case nil: return nil
        case .tree(let t, let used):
            guard let removed = trees[t].removeValue(at: path.components[used...]) else { return nil }
            isEdited = true
            return .tree(removed)
        case .object(let o):
            let key = path.componentBytes.last!
            guard let i = index(of: key, in: o) else { return nil }
            let removed = content(of: objects[o].members[i].slot)
            removeMembers(named: key, in: o, keeping: nil)
            isEdited = true
            return removed
        }
    }

    /// Writes `content` at `path`: replaces what is there (the last member with the key,
    /// dropping earlier ones), or adds it as the last member of its object, creating objects
    /// for missing keys and in place of `null`s on the way. Throws when a value on the way is
    /// neither an object nor null (the event then fails: what was written is not kept).
    mutating func write(_ content: Content, at path: FieldPath) throws(PathConflict) {
        var o = 0
        for depth in 0..<(path.components.count - 1) {
            guard let i = index(of: path.componentBytes[depth], in: o) else {
                let k = newObject()
                appendMember(path.components[depth], .object(k), to: o)
                o = k
                continue
            }
            switch objects[o].members[i].slot {
            case .object(let k): o = k
            case .tree(let t):
                let value = tree(of: content)
                try trees[t].setValue(value, at: path.components[(depth + 1)...], full: path, depth: depth + 1)
                isEdited = true
                return
            case .source(let range, let kind):
                let k: Int
                switch kind {
                case .object: k = openObject(range)
                case .null: k = newObject()
                default: throw PathConflict(at: path.prefix(depth + 1), found: PathConflict.kindName(kind))
                }
                objects[o].members[i].slot = .object(k)
                o = k
            }
        }
        let key = path.componentBytes.last!
        let newSlot = slot(for: content)
        if let i = index(of: key, in: o) {
            objects[o].members[removeMembers(named: key, in: o, keeping: i)].slot = newSlot
        } else {
            appendMember(path.components.last!, newSlot, to: o)
        }
        isEdited = true
    }

    /// Removes every member of object `o` whose key's bytes are `key`, except the one at index
    /// `kept`; returns where that one is now (or -1 when none is kept).
    @discardableResult
    private mutating func removeMembers(named key: [UInt8], in o: Int, keeping kept: Int?) -> Int {
        var keptIndex = kept ?? -1
        var j = objects[o].members.count - 1
        // Locals for the comparison: calling a method of the document here would copy it.
        let source = source, addedKeys = addedKeys
        // From the end, so that the indexes still to visit do not move.
        while j >= 0 {
            let candidate = objects[o].members[j].key
            if j != kept, key.withUnsafeBufferPointer({ Self.keyEquals(candidate, $0, source, addedKeys) }) {
                objects[o].members.remove(at: j)
                if j < keptIndex { keptIndex -= 1 }
            }
            j -= 1
        }
        return keptIndex
    }
}
