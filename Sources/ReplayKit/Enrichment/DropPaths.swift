import JSONCore

/// `privacy.drop_properties`, sorted by the object each entry applies to.
///
/// - `email` (no dot): the key `email` of `properties`, `traits` and `context.traits`.
/// - `properties.user.email`, `traits.address.street`: a path from that object.
/// - `context.traits.phone`, `context.ip`: a path from `context`.
/// - `user.email` (a dotted path with another first part): the path inside each of
///   `properties`, `traits` and `context.traits`, and also a key written `user.email` there.
struct DropPaths: Sendable {
    /// Paths inside `properties`.
    var properties: [[String]] = []
    /// Paths inside `traits`.
    var traits: [[String]] = []
    /// Paths inside `context` (a `context.traits` entry starts with `traits`).
    var context: [[String]] = []

    /// Whether no entry is configured.
    var isEmpty: Bool { properties.isEmpty && traits.isEmpty && context.isEmpty }

    /// Sorts the configured entries.
    init(_ entries: [String]) {
        for entry in entries {
            let parts = entry.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            switch parts[0] {
            case _ where parts.count == 1:
                addEverywhere(parts)
            case "properties": properties.append(Array(parts.dropFirst()))
            case "traits": traits.append(Array(parts.dropFirst()))
            case "context": context.append(Array(parts.dropFirst()))
            default:
                addEverywhere(parts)
                addEverywhere([entry])
            }
        }
    }

    private mutating func addEverywhere(_ path: [String]) {
        properties.append(path)
        traits.append(path)
        context.append(["traits"] + path)
    }

    /// The object `m` (in `buf`) with `paths` removed, and how many members went; nil when `m`
    /// is not an object or nothing was removed.
    static func removing(_ paths: [[String]], from m: JSONMember?, _ buf: UnsafeBufferPointer<UInt8>) -> (bytes: [UInt8], removed: Int)? {
        guard let m, m.kind == .object else { return nil }
        return removing(paths, objectAt: m.value, buf)
    }

    /// The object at `range` of `buf` with `paths` removed; see ``removing(_:from:_:)``.
    static func removing(_ paths: [[String]], objectAt range: Range<Int>, _ buf: UnsafeBufferPointer<UInt8>) -> (bytes: [UInt8], removed: Int)? {
        guard !paths.isEmpty, let layout = ObjectLayout.scanNested(buf, range) else { return nil }
        var editor = ObjectEditor(layout)
        var removed = 0
        var removedKeys: Set<String> = []
        for path in paths where path.count == 1 && !removedKeys.contains(path[0]) {
            if editor.remove(path[0], in: buf) {
                removed += 1
                removedKeys.insert(path[0])
            }
        }
        // Deeper paths, grouped by their first key, in the order first named.
        var heads: [String] = []
        var tails: [String: [[String]]] = [:]
        for path in paths where path.count > 1 && !removedKeys.contains(path[0]) {
            if tails[path[0]] == nil { heads.append(path[0]) }
            tails[path[0], default: []].append(Array(path.dropFirst()))
        }
        for head in heads {
            guard let nested = removing(tails[head]!, from: layout.member(head, in: buf), buf) else { continue }
            editor.set(head, raw: nested.bytes, in: buf)
            removed += nested.removed
        }
        guard removed > 0 else { return nil }
        return (editor.rendered(buf), removed)
    }
}
